/*
 * bolt.c - `pgbuild bundle bolt`: rewrite an installed binary in place with
 * the bundle's BOLT profile, as a package build does between its install
 * and its strip step; see bundle.h.
 *
 * The binary is rewritten into a temporary file beside it and renamed over
 * it only when BOLT succeeded and the share of the profile's samples that
 * BOLT found valid reaches the threshold: otherwise the binary is left as
 * it was.  Two things a package needs that `pgbuild bolt` (a new prefix of
 * its own) does not:
 *   - debug information: without -update-debug-sections BOLT 15 drops it
 *     from the binary (measured: "debug info will be stripped"), and with
 *     it BOLT 15 cannot read GCC 12's default DWARF 5 ("unsupported form
 *     for DW_AT_call_return_pc", then a crash); so a binary with DWARF 5 is
 *     refused before BOLT runs, naming -gdwarf-4, and one with DWARF 4 or
 *     less is rewritten with -update-debug-sections;
 *   - records = side: BOLT flips the last bit of the build-id, so the side
 *     file of the binary's records (LOGDIR/records/.build-id/...) is
 *     rewritten under the new build-id, with the new build-id note
 *     (objcopy), which inspect and verify check.
 *
 * The bundle is checked whole first (bundle_open_files); llvm-bolt then
 * reads a copy of its profile's checked bytes (bundle_verified_read) in a
 * new private directory, TMPDIR/pgbuild-bundle-bolt-XXXXXX (mkdtemp: 0700,
 * the caller's), never the bundle's file by its name.  BOLT's log goes to
 * LOGDIR/bolt-BINARY.log with --log, else into that directory, which is
 * then kept for it; the build-id note objcopy extracts goes there too.
 * Nothing is opened by a predictable name in a shared directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pgbuild/bolt/bolt.h"
#include "pgbuild/bundle/bundle.h"
#include "pgbuild/elf/elfrec.h"
#include "pgbuild/pgbuild.h"

/* The binary's build-id and DWARF version (elfrec). */
static int binary_facts(const char *path, char id[129], int *dwarf)
{
	struct elfrec_file f;
	struct strbuf err = STRBUF_INIT;

	if (elfrec_open(path, &f, &err) < 0) {
		error("%s", err.buf);
		strbuf_release(&err);
		return -1;
	}
	strbuf_release(&err);
	memcpy(id, f.objs[0].build_id, 129);
	*dwarf = f.objs[0].dwarf_version;
	elfrec_release(&f);
	return 0;
}

/* LOGDIR/records/.build-id/XX/REST.pgopt of a build-id, malloced. */
static char *side_path(const char *log, const char *id)
{
	return xasprintf("%s/records/.build-id/%.2s/%s.pgopt", log, id, id + 2);
}

static int objcopy(struct strvec *args)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf out = STRBUF_INIT;
	int rc;

	strvec_push(&cp.args, "objcopy");
	strvec_pushv(&cp.args, (const char *const *)args->v);
	cp.no_stdin = 1;
	rc = capture_command(&cp, &out, 1);
	if (rc != 0)
		error("objcopy failed (exit %d): %s", rc, out.buf);
	child_process_clear(&cp);
	strbuf_release(&out);
	return rc == 0 ? 0 : -1;
}

/* The side file of the old build-id, rewritten for the new one. */
static int move_side(const char *log, const char *binary, const char *old_id, const char *new_id,
		     const char *private_dir, int quiet)
{
	char *from = side_path(log, old_id), *to = side_path(log, new_id);
	char *note = xasprintf("%s/build-id.note", private_dir), *dir = xstrdup(to);
	struct strvec a = STRVEC_INIT;
	int rc = 0;

	if (access(from, F_OK) != 0)
		goto out;  /* no records moved aside for this binary */
	*strrchr(dir, '/') = '\0';
	if (mkdir_p(dir) < 0) {
		rc = error("cannot make %s: %s", dir, strerror(errno));
		goto out;
	}
	strvec_pushf(&a, "--dump-section=.note.gnu.build-id=%s", note);
	strvec_pushl(&a, binary, "/dev/null", NULL);
	rc = objcopy(&a);
	strvec_clear(&a);
	if (rc == 0) {
		strvec_pushf(&a, "--update-section=.note.gnu.build-id=%s", note);
		strvec_pushl(&a, from, to, NULL);
		rc = objcopy(&a);
	}
	unlink(note);
	if (rc == 0 && strcmp(from, to) && unlink(from) < 0)
		rc = error("cannot remove %s: %s", from, strerror(errno));
	if (rc == 0 && !quiet)
		printf("bundle bolt: the records' side file is now %s\n", to);
out:
	strvec_clear(&a);
	free(from);
	free(to);
	free(note);
	free(dir);
	return rc;
}

static double stale_percent(const struct bolt_stats *st)
{
	if (st->samples > 0 && st->stale_samples >= 0)
		return 100.0 * (double)st->stale_samples / (double)st->samples;
	return st->stale_functions > 0 ? 100.0 : 0.0;
}

/* A new private directory for the profile's copy and the log: mkdtemp
 * in TMPDIR; its path, or NULL after the error. */
static char *private_dir(void)
{
	const char *t = getenv("TMPDIR");
	char *dir = xasprintf("%s/pgbuild-bundle-bolt-XXXXXX", t && *t ? t : "/tmp");

	if (!mkdtemp(dir)) {
		error("cannot make a temporary directory %s: %s (set TMPDIR)", dir, strerror(errno));
		free(dir);
		return NULL;
	}
	return dir;
}

/* The bundle's BOLT profile (rel), checked as read, into dir/profile.fdata
 * (a new file); its path, or NULL after the error. */
static char *copy_profile(const struct bundle_verified *bv, const char *rel, const char *dir)
{
	struct strbuf data = STRBUF_INIT, err = STRBUF_INIT;
	char *path = NULL;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), fd = -1;

	if (dfd < 0)
		error("cannot open %s: %s", dir, strerror(errno));
	else if (bundle_verified_read(bv, rel, &data, &err) <= 0)
		error("%s", err.len ? err.buf : "the bundle's BOLT profile is not one of its files");
	else if ((fd = sfs_create(dfd, "profile.fdata", O_WRONLY, 0600, &err)) < 0)
		error("%s/profile.fdata: %s", dir, err.buf);
	else if (write_all(fd, data.buf, data.len) < 0)
		error("cannot write %s/profile.fdata: %s", dir, strerror(errno));
	else
		path = xasprintf("%s/profile.fdata", dir);
	if (fd >= 0)
		close(fd);
	if (dfd >= 0)
		close(dfd);
	strbuf_release(&data);
	strbuf_release(&err);
	return path;
}

/* See bundle.h. */
int bundle_bolt(const struct bundle_bolt_opts *o)
{
	struct bundle_verified bv = BUNDLE_VERIFIED_INIT;
	const struct json_value *m = NULL;
	struct bolt_opts bo;
	struct bolt_run b;
	struct bolt_stats st;
	struct strbuf why = STRBUF_INIT, text = STRBUF_INIT;
	struct strvec args = STRVEC_INIT;
	char old_id[129] = "", new_id[129] = "", *tmp = NULL, *logfile = NULL, *profile = NULL;
	char *pdir = NULL;
	const char *prel;
	int dwarf, ready, keep_pdir = 0, rc = PGBUILD_EXIT_ERROR;
	double applies;
	struct stat sb;

	bolt_opts_init(&bo);
	memset(&b, 0, sizeof(b));
	bo.bolt_dir = o->bolt_dir;
	b.o = &bo;
	/* the whole bundle, before anything of it is used */
	if (bundle_open_files(o->dir, &bv) < 0)
		goto out;
	m = bv.manifest;
	if (!(prel = json_get_str(json_get(m, "bolt"), "profile"))) {
		error("%s has no BOLT profile (made without --bolt)", o->dir);
		goto out;
	}
	/* the flags the measured rewrite used; a bundle's are checked like --bolt-flags */
	bo.flags = json_get_str(json_get(m, "bolt"), "optimize_flags");
	if (bo.flags) {
		char *what = xasprintf("%s/%s: bolt.optimize_flags", o->dir, BUNDLE_MANIFEST_NAME);
		int bad = bolt_check_flags(what, bo.flags);
		free(what);
		if (bad < 0)
			goto out;
	}
	if (stat(o->binary, &sb) < 0) {
		error("%s: %s", o->binary, strerror(errno));
		goto out;
	}
	if (!S_ISREG(sb.st_mode)) {
		error("%s: not a regular file", o->binary);
		goto out;
	}
	if ((ready = bolt_binary_ready(o->binary, bolt_optimize_flags(&bo), &why)) != 1) {
		error("%s", why.buf);
		goto out;
	}
	if (binary_facts(o->binary, old_id, &dwarf) < 0)
		goto out;
	if (dwarf >= 5 || dwarf < 0) {
		error("%s has %s debug information, which BOLT 15 cannot carry over a rewrite (it "
		      "drops it, or fails on GCC 12's DW_AT_call_return_pc): build it through pgoptcc "
		      "with a policy that has \"%s\" (which makes -g DWARF 4), or with -gdwarf-4",
		      o->binary, dwarf < 0 ? "compressed" : "DWARF 5", BOLT_POLICY_LINE);
		goto out;
	}
	if (bolt_prepare_tools(&b) < 0)
		goto out;
	if (!(pdir = private_dir()) || !(profile = copy_profile(&bv, prel, pdir)))
		goto out;
	tmp = xasprintf("%s.pgopt-bolt-%ld", o->binary, (long)getpid());
	{
		/* never beside the binary: in a package's tree it would ship */
		const char *base = strrchr(o->binary, '/') ? strrchr(o->binary, '/') + 1 : o->binary;
		logfile = xasprintf("%s/bolt-%s.log", o->log ? o->log : pdir, base);
		keep_pdir = !o->log;
	}
	strvec_pushl(&args, o->binary, "-o", tmp, NULL);
	strvec_pushf(&args, "-data=%s", profile);
	bolt_push_flags(&args, bolt_optimize_flags(&bo));
	if (dwarf > 0)
		strvec_push(&args, "-update-debug-sections");
	if (bolt_exec(&b, &args, logfile, "refused to rewrite") != 0)
		goto out;
	sfs_read(AT_FDCWD, logfile, SFS_IN_LOG, 0, &text, NULL);
	bolt_parse_stats(text.buf, &st);
	applies = 100.0 - stale_percent(&st);
	if (!o->quiet)
		printf("bundle bolt: %s: %.1f%% of the profile's samples apply (threshold %.0f%%); "
		       "%ld functions with a profile, %ld stale (BOLT's log: %s)\n", o->binary,
		       applies, o->min_applies, st.functions_profiled, st.stale_functions, logfile);
	fflush(stdout);
	if (applies < o->min_applies) {
		error("%s: only %.1f%% of the BOLT profile's samples apply (%ld functions stale), below "
		      "the %.0f%% it must (--min-applies): the binary was left as it was; train again",
		      o->binary, applies, st.stale_functions, o->min_applies);
		rc = PGBUILD_EXIT_FAIL;
		goto out;
	}
	if (chmod(tmp, sb.st_mode & 07777) < 0 || rename(tmp, o->binary) < 0) {
		error("cannot put the rewritten %s in place: %s", o->binary, strerror(errno));
		goto out;
	}
	rc = PGBUILD_EXIT_OK;
	if (o->log && binary_facts(o->binary, new_id, &dwarf) == 0 && old_id[0] && new_id[0] &&
	    strcmp(old_id, new_id) && move_side(o->log, o->binary, old_id, new_id, pdir, o->quiet) < 0)
		rc = PGBUILD_EXIT_ERROR;
	if (rc == PGBUILD_EXIT_OK && o->json) {
		struct strbuf sb2 = STRBUF_INIT;
		struct json_writer jw;
		json_writer_init(&jw, &sb2);
		json_object_begin(&jw);
		json_key(&jw, "kind"); json_string(&jw, "pgopt-bundle-bolt");
		json_key(&jw, "bundle"); json_string(&jw, o->dir);
		json_key(&jw, "binary"); json_string(&jw, o->binary);
		json_key(&jw, "applies_percent"); json_double(&jw, applies);
		json_key(&jw, "min_applies"); json_double(&jw, o->min_applies);
		json_key(&jw, "build_id"); json_string(&jw, new_id);
		bolt_stats_json(&jw, &st);
		json_object_end(&jw);
		strbuf_addch(&sb2, '\n');
		if (write_result(o->json, sb2.buf, sb2.len) < 0)
			rc = PGBUILD_EXIT_ERROR;
		strbuf_release(&sb2);
	}
out:
	if (tmp)
		unlink(tmp);
	if (profile)
		unlink(profile);
	/* the private directory stays only for BOLT's log */
	if (pdir && !(keep_pdir && logfile && access(logfile, F_OK) == 0))
		remove_tree(pdir);
	strvec_clear(&args);
	strbuf_release(&why);
	strbuf_release(&text);
	free(tmp);
	free(logfile);
	free(profile);
	free(pdir);
	free(b.llvm_bolt);
	free(b.bolt_version);
	bolt_opts_release(&bo);
	bundle_verified_release(&bv);
	return rc;
}
