/*
 * records.c - move a linked binary's records into a side file named by its
 * build-id (records = side); see records.h.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wrapper/common/dir.h"
#include "wrapper/common/safefs.h"
#include "wrapper/common/run-command.h"
#include "wrapper/common/xalloc.h"
#include "wrapper/records.h"

/* What the section headers of an ELF64 little-endian file say. */
struct elf_facts {
	char build_id[129];   /* hex, or "" */
	int has_records;      /* .pgopt.log or .GCC.command.line */
	int linked;           /* ET_EXEC or ET_DYN */
};

static int read_at(int fd, void *buf, size_t n, off_t off)
{
	return pread(fd, buf, n, off) == (ssize_t)n ? 0 : -1;
}

/* The GNU build-id in the notes of one SHT_NOTE section. */
static void note_build_id(int fd, const Elf64_Shdr *sh, struct elf_facts *f)
{
	unsigned char buf[4096];
	size_t n = sh->sh_size < sizeof(buf) ? sh->sh_size : sizeof(buf), off = 0;

	if (read_at(fd, buf, n, (off_t)sh->sh_offset) < 0)
		return;
	while (off + sizeof(Elf64_Nhdr) <= n) {
		Elf64_Nhdr nh;
		size_t name = off + sizeof(nh), desc;
		memcpy(&nh, buf + off, sizeof(nh));
		desc = name + ((nh.n_namesz + 3) & ~3u);
		if (desc + nh.n_descsz > n)
			return;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp(buf + name, "GNU", 4) && nh.n_descsz &&
		    nh.n_descsz * 2 < sizeof(f->build_id)) {
			for (size_t i = 0; i < nh.n_descsz; i++)
				snprintf(f->build_id + 2 * i, 3, "%02x", buf[desc + i]);
			return;
		}
		off = desc + ((nh.n_descsz + 3) & ~3u);
	}
}

/* 0 with the facts, -1 when path is no ELF64 file we can read (left alone). */
static int elf_facts(const char *path, struct elf_facts *f)
{
	int fd = sfs_open_input(AT_FDCWD, path, SFS_IN_BINARY, 0, NULL, NULL);
	Elf64_Ehdr eh;
	Elf64_Shdr strsh;
	char *names = NULL;
	int rc = -1;

	memset(f, 0, sizeof(*f));
	if (fd < 0)
		return -1;
	if (read_at(fd, &eh, sizeof(eh), 0) < 0 || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shstrndx >= eh.e_shnum ||
	    read_at(fd, &strsh, sizeof(strsh), (off_t)(eh.e_shoff + eh.e_shstrndx * sizeof(strsh))) < 0 ||
	    strsh.sh_size > (1u << 20))
		goto out;
	names = xmalloc(strsh.sh_size + 1);
	if (read_at(fd, names, strsh.sh_size, (off_t)strsh.sh_offset) < 0)
		goto out;
	names[strsh.sh_size] = '\0';
	f->linked = eh.e_type == ET_EXEC || eh.e_type == ET_DYN;
	for (unsigned i = 1; i < eh.e_shnum; i++) {
		Elf64_Shdr sh;
		const char *name;
		if (read_at(fd, &sh, sizeof(sh), (off_t)(eh.e_shoff + i * sizeof(sh))) < 0)
			goto out;
		name = sh.sh_name < strsh.sh_size ? names + sh.sh_name : "";
		if (!strcmp(name, ".pgopt.log") || !strcmp(name, ".GCC.command.line"))
			f->has_records = 1;
		if (sh.sh_type == SHT_NOTE && !f->build_id[0])
			note_build_id(fd, &sh, f);
	}
	rc = 0;
out:
	free(names);
	close(fd);
	return rc;
}

/* Run objcopy ARGS; -1 with "objcopy failed WHAT (exit N): its first
 * line" in err. */
static int objcopy(const char *const *args, const char *what, struct strbuf *err)
{
	struct child_process cp;
	struct strbuf out = STRBUF_INIT;
	int code;

	child_process_init(&cp);
	strvec_push(&cp.args, "objcopy");
	strvec_pushv(&cp.args, args);
	cp.no_stdin = 1;
	code = capture_command(&cp, &out, 1);
	child_process_clear(&cp);
	if (code != 0) {
		size_t n = strcspn(out.buf, "\n");
		strbuf_addf(err, "objcopy failed %s (exit %d)%s%.*s", what, code, n ? ": " : "",
			    (int)(n < 200 ? n : 200), out.buf);
	}
	strbuf_release(&out);
	return code ? -1 : 0;
}

/* A new directory of ours below dirfd, named .tmp-XXXXXX (random; an
 * existing name is never taken); its descriptor, the name in name. */
static int make_tmpdir(int dirfd, const char *where, struct strbuf *name, struct strbuf *err)
{
	for (int tries = 0; tries < 100; tries++) {
		unsigned char r[6];
		int fd;
		strbuf_reset(name);
		strbuf_addstr(name, ".tmp-");
		if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
			break;
		for (size_t i = 0; i < sizeof(r); i++)
			strbuf_addch(name, "abcdefghijklmnopqrstuvwxyz0123456789"[r[i] % 36]);
		fd = sfs_mkdir(dirfd, name->buf, 0700, (uid_t)-1, (gid_t)-1, 0, NULL);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			break;
	}
	strbuf_addf(err, "cannot make %s/.tmp-XXXXXX: %s", where, strerror(errno));
	return -1;
}

int records_move(const char *output, int logfd, const char *logdir, char **side,
		 struct strbuf *err)
{
	struct elf_facts f;
	struct strbuf tmpname = STRBUF_INIT;
	char *sub, *path, *recdir, *tmp = NULL, *base;
	int recfd = -1, dirfd = -1, tmpfd = -1, rc = -1;

	*side = NULL;
	if (elf_facts(output, &f) < 0 || !f.linked || !f.has_records || !f.build_id[0])
		return 0;
	sub = xasprintf("records/.build-id/%.2s", f.build_id);
	recdir = xasprintf("%s/records", logdir);
	path = xasprintf("%s/%s/%s.pgopt", logdir, sub, f.build_id + 2);
	base = strrchr(path, '/') + 1;
	/* below the log directory's descriptor, no link followed: a link
	 * planted at records/ or below is refused, never written through */
	if ((recfd = sfs_mkdir(logfd, "records", 0755, (uid_t)-1, (gid_t)-1, 1, err)) < 0 ||
	    (dirfd = sfs_mkdir(recfd, ".build-id", 0755, (uid_t)-1, (gid_t)-1, 1, err)) < 0)
		goto out;
	{
		int xx = sfs_mkdir(dirfd, sub + strlen("records/.build-id/"), 0755, (uid_t)-1,
				   (gid_t)-1, 1, err);
		close(dirfd);
		if ((dirfd = xx) < 0)
			goto out;
	}
	/* objcopy writes into a fresh 0700 directory of ours, and the file is
	 * renamed into place: a link planted at the name is replaced, never
	 * followed */
	if ((tmpfd = make_tmpdir(recfd, recdir, &tmpname, err)) < 0)
		goto out;
	tmp = xasprintf("%s/%s/%s.pgopt", recdir, tmpname.buf, f.build_id);
	{
		const char *keep[] = { "--only-section=.pgopt.log", "--only-section=.GCC.command.line",
				       "--only-section=.note.gnu.build-id", output, tmp, NULL };
		const char *drop[] = { "--remove-section=.pgopt.log",
				       "--remove-section=.GCC.command.line", output, NULL };
		char *w1 = xasprintf("copying the records of %s to %s", output, path);
		char *w2 = xasprintf("removing the records from %s", output);
		int bad = objcopy(keep, w1, err) < 0 || objcopy(drop, w2, err) < 0;
		free(w1);
		free(w2);
		if (bad)
			goto out;
	}
	if (renameat(tmpfd, strrchr(tmp, '/') + 1, dirfd, base) < 0) {
		strbuf_addf(err, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
		goto out;
	}
	*side = path;
	path = NULL;
	rc = 0;
out:
	if (tmpfd >= 0) {
		unlinkat(tmpfd, strrchr(tmp, '/') + 1, 0);
		close(tmpfd);
		unlinkat(recfd, tmpname.buf, AT_REMOVEDIR);
	}
	if (dirfd >= 0)
		close(dirfd);
	if (recfd >= 0)
		close(recfd);
	strbuf_release(&tmpname);
	free(tmp);
	free(recdir);
	free(sub);
	free(path);
	return rc;
}
