/*
 * elfrec.c - read .GCC.command.line, .pgopt.log, function symbols and text
 * section sizes out of ELF objects, archives, executables and shared
 * libraries; see elfrec.h.
 *
 * Every offset read from the file is checked against the file size before
 * libelf is asked for data, so truncated or corrupt input ends in an error
 * message, not a crash.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pgbuild/elf/elfrec.h"
#include "wrapper/common/safefs.h"
#include "wrapper/common/xalloc.h"

static int elfrec_fail(struct strbuf *err, const char *path, const char *member,
		       const char *what)
{
	if (err) {
		strbuf_reset(err);
		if (member)
			strbuf_addf(err, "%s(%s): %s", path, member, what);
		else
			strbuf_addf(err, "%s: %s", path, what);
		/* names come from the file: keep the message one printable line */
		for (size_t i = 0; i < err->len; i++)
			if ((unsigned char)err->buf[i] < 0x20 || err->buf[i] == 0x7f)
				err->buf[i] = '?';
	}
	return -1;
}

int elfrec_section_is(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);
	return !strncmp(name, prefix, n) && (name[n] == '\0' || name[n] == '.');
}

static const char *debug_dir;

void elfrec_set_debug_dir(const char *dir)
{
	debug_dir = dir;
}

/* The GNU build-id note of a SHT_NOTE section, in hex into obj. */
static void read_build_id(Elf_Scn *scn, const GElf_Shdr *sh, size_t image_size,
			  struct elfrec_object *obj)
{
	Elf_Data *d;
	GElf_Nhdr nh;
	size_t off = 0, name_off, desc_off;

	if (sh->sh_offset > image_size || sh->sh_size > image_size - sh->sh_offset)
		return;
	d = elf_getdata(scn, NULL);
	while (d && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp((char *)d->d_buf + name_off, "GNU", 4) &&
		    nh.n_descsz && nh.n_descsz * 2 < sizeof(obj->build_id)) {
			const unsigned char *b = (const unsigned char *)d->d_buf + desc_off;
			for (size_t i = 0; i < nh.n_descsz; i++)
				snprintf(obj->build_id + 2 * i, 3, "%02x", b[i]);
			return;
		}
	}
}

/* The DWARF version of the first unit of .debug_info (its header: a
 * 4-byte length, or 0xffffffff and an 8-byte one, then the version). */
static void read_dwarf_version(Elf_Scn *scn, const GElf_Shdr *sh, size_t image_size,
			       struct elfrec_object *obj)
{
	Elf_Data *d;
	const unsigned char *b;
	uint32_t len32;
	uint16_t v;
	size_t at = 4;

	if (sh->sh_type == SHT_NOBITS || sh->sh_offset > image_size ||
	    sh->sh_size > image_size - sh->sh_offset)
		return;
	if (sh->sh_flags & SHF_COMPRESSED) {
		obj->dwarf_version = -1;  /* there, version unknown */
		return;
	}
	d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf || d->d_size < 14)
		return;
	b = d->d_buf;
	memcpy(&len32, b, 4);
	if (len32 == 0xffffffffu)
		at = 12;
	memcpy(&v, b + at, 2);
	obj->dwarf_version = v;
}

/* Split a string section into its NUL-terminated strings. */
static void split_strings(const char *data, size_t size, char ***out, size_t *nr)
{
	size_t alloc = *nr;
	size_t i = 0;
	while (i < size) {
		size_t n = strnlen(data + i, size - i);
		if (n) {
			ALLOC_GROW(*out, *nr + 1, alloc);
			(*out)[(*nr)++] = xstrndup(data + i, n);
		}
		i += n + 1;
	}
}

/* Split text into lines (without '\n'), skipping NUL padding between
 * concatenated records. */
static void split_lines(const char *data, size_t size, char ***out, size_t *nr)
{
	size_t alloc = *nr;
	size_t i = 0;
	while (i < size) {
		size_t n = 0;
		while (i + n < size && data[i + n] != '\n' && data[i + n] != '\0')
			n++;
		if (n) {
			ALLOC_GROW(*out, *nr + 1, alloc);
			(*out)[(*nr)++] = xstrndup(data + i, n);
		}
		i += n + 1;
	}
}

/* Section data after checking it lies inside the image. */
static Elf_Data *section_data(Elf_Scn *scn, const GElf_Shdr *sh, size_t image_size)
{
	if (sh->sh_type == SHT_NOBITS)
		return NULL;
	if (sh->sh_offset > image_size || sh->sh_size > image_size - sh->sh_offset)
		return NULL;
	return elf_getdata(scn, NULL);
}

/* Does the dynamic section ask for every symbol bound at load (-z now:
 * DT_BIND_NOW, DF_BIND_NOW in DT_FLAGS or DF_1_NOW in DT_FLAGS_1)? */
static void read_bind_now(Elf_Scn *scn, const GElf_Shdr *sh, size_t image_size,
			  struct elfrec_object *obj)
{
	Elf_Data *d = section_data(scn, sh, image_size);
	size_t n = d && sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	GElf_Dyn dyn;

	for (size_t i = 0; i < n && gelf_getdyn(d, (int)i, &dyn) && dyn.d_tag != DT_NULL; i++)
		if (dyn.d_tag == DT_BIND_NOW ||
		    (dyn.d_tag == DT_FLAGS && (dyn.d_un.d_val & DF_BIND_NOW)) ||
		    (dyn.d_tag == DT_FLAGS_1 && (dyn.d_un.d_val & DF_1_NOW)))
			obj->bind_now = 1;
}

/* The dynamic section's NEEDED, SONAME and RUNPATH (else RPATH) strings,
 * from the string table it links to (ELFREC_DYNAMIC).  0, or -1. */
static int read_dynamic(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, size_t image_size,
			struct elfrec_object *obj)
{
	Elf_Data *d = section_data(scn, sh, image_size);
	size_t n = d && sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0, alloc = 0;
	char *rpath = NULL;
	GElf_Dyn dyn;

	for (size_t i = 0; i < n && gelf_getdyn(d, (int)i, &dyn) && dyn.d_tag != DT_NULL; i++) {
		const char *str;
		if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_SONAME && dyn.d_tag != DT_RUNPATH &&
		    dyn.d_tag != DT_RPATH)
			continue;
		str = elf_strptr(elf, sh->sh_link, dyn.d_un.d_val);
		if (!str) {
			free(rpath);
			return -1;
		}
		if (dyn.d_tag == DT_NEEDED) {
			ALLOC_GROW(obj->needed, obj->nneeded + 1, alloc);
			obj->needed[obj->nneeded++] = xstrdup(str);
		} else if (dyn.d_tag == DT_SONAME && !obj->soname) {
			obj->soname = xstrdup(str);
		} else if (dyn.d_tag == DT_RUNPATH && !obj->runpath) {
			obj->runpath = xstrdup(str);
		} else if (dyn.d_tag == DT_RPATH && !rpath) {
			rpath = xstrdup(str);
		}
	}
	/* the dynamic linker ignores DT_RPATH when DT_RUNPATH is there */
	if (!obj->runpath)
		obj->runpath = rpath;
	else
		free(rpath);
	return 0;
}

/* .dynsym's symbols but LOCAL ones, the undefined and those defined for
 * others (a hidden definition is no export), without versions
 * (ELFREC_DYNAMIC).  0, or -1. */
static int read_dynsyms(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, size_t image_size,
			struct elfrec_object *obj)
{
	Elf_Data *d = section_data(scn, sh, image_size);
	size_t n, alloc = 0;

	if (!d || !sh->sh_entsize)
		return -1;
	n = sh->sh_size / sh->sh_entsize;
	for (size_t i = 1; i < n; i++) {
		GElf_Sym sym;
		const char *name;
		int bind, type, vis;
		struct elfrec_dynsym *ds;
		if (!gelf_getsym(d, (int)i, &sym))
			return -1;
		bind = GELF_ST_BIND(sym.st_info);
		type = GELF_ST_TYPE(sym.st_info);
		vis = GELF_ST_VISIBILITY(sym.st_other);
		if (bind == STB_LOCAL || type == STT_SECTION || type == STT_FILE)
			continue;
		if (sym.st_shndx != SHN_UNDEF && (vis == STV_HIDDEN || vis == STV_INTERNAL))
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name)
			return -1;
		if (!*name)
			continue;
		ALLOC_GROW(obj->dynsyms, obj->ndynsyms + 1, alloc);
		ds = &obj->dynsyms[obj->ndynsyms++];
		ds->name = xstrdup(name);
		ds->defined = sym.st_shndx != SHN_UNDEF;
		ds->weak = bind == STB_WEAK;
	}
	return 0;
}

/* Does the image ask for a program interpreter (PT_INTERP)? */
static int has_interp(Elf *elf)
{
	size_t phnum;
	if (elf_getphdrnum(elf, &phnum))
		return 0;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_INTERP)
			return 1;
	}
	return 0;
}

static int read_symbols(Elf *elf, Elf_Scn *symscn, const GElf_Shdr *symsh,
			size_t image_size, size_t shnum, char **secnames,
			struct elfrec_object *obj)
{
	Elf_Data *data = section_data(symscn, symsh, image_size);
	size_t n, alloc = 0;
	char *file = xstrdup("");   /* the last STT_FILE symbol's name */
	if (!data || !symsh->sh_entsize) {
		free(file);
		return -1;
	}
	n = symsh->sh_size / symsh->sh_entsize;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym sym;
		const char *name;
		struct elfrec_func *fn;
		if (!gelf_getsym(data, (int)i, &sym)) {
			free(file);
			return -1;
		}
		if (GELF_ST_TYPE(sym.st_info) == STT_FILE) {
			name = elf_strptr(elf, symsh->sh_link, sym.st_name);
			free(file);
			file = xstrdup(name ? name : "");
			continue;
		}
		if (GELF_ST_TYPE(sym.st_info) != STT_FUNC)
			continue;
		name = elf_strptr(elf, symsh->sh_link, sym.st_name);
		if (!name) {
			free(file);
			return -1;
		}
		ALLOC_GROW(obj->funcs, obj->nfuncs + 1, alloc);
		fn = &obj->funcs[obj->nfuncs++];
		fn->name = xstrdup(name);
		fn->addr = sym.st_value;
		fn->size = sym.st_size;
		fn->global = GELF_ST_BIND(sym.st_info) != STB_LOCAL;
		fn->file = xstrdup(fn->global ? "" : file);
		if (sym.st_shndx != SHN_UNDEF && sym.st_shndx < SHN_LORESERVE &&
		    sym.st_shndx < shnum && secnames[sym.st_shndx])
			fn->section = xstrdup(secnames[sym.st_shndx]);
		else
			fn->section = xstrdup("");
	}
	free(file);
	return 0;
}

/* One ELF image being read (read_image). */
struct image {
	Elf *elf;
	unsigned flags;          /* elfrec_open_flags' */
	size_t image_size;       /* its bytes */
	size_t shnum, shstrndx;  /* its sections, and the one of their names */
	char **secnames;         /* each section's name (shnum of them; [0] NULL) */
	Elf_Scn *symtab, *dynsym; /* .symtab and .dynsym, or NULL */
	GElf_Shdr symsh, dynsh;  /* their headers */
};

/*
 * The image's header, checked against its size before libelf is asked for
 * sections (libelf quietly reports none when the table lies past the end).
 * 0, 1 when there is nothing to read (LLVM bitcode), or -1 with *why set.
 */
static int read_header(struct image *im, struct elfrec_object *obj, const char **why)
{
	GElf_Ehdr eh;

	if (elf_kind(im->elf) != ELF_K_ELF) {
		size_t n = 0;
		const char *raw = elf_rawfile(im->elf, &n);
		/* LLVM bitcode (clang's -flto objects in an archive): no
		 * sections, nothing recorded; the linker reads it, not us */
		if (raw && n >= 4 && !memcmp(raw, "BC\xc0\xde", 4))
			return 1;
		*why = "not an ELF file";
		return -1;
	}
	if (!elf_rawfile(im->elf, &im->image_size) || !gelf_getehdr(im->elf, &eh)) {
		*why = "truncated or corrupt ELF header";
		return -1;
	}
	obj->elf_type = eh.e_type;
	if (eh.e_shoff || eh.e_shnum) {
		uint64_t entsize = eh.e_shentsize, count = eh.e_shnum ? eh.e_shnum : 1;
		if (!entsize || eh.e_shoff > im->image_size ||
		    count > (im->image_size - eh.e_shoff) / entsize) {
			*why = "section header table extends past the end of the file (truncated?)";
			return -1;
		}
	}
	if (eh.e_phoff && eh.e_phnum &&
	    (eh.e_phoff > im->image_size || !eh.e_phentsize ||
	     eh.e_phnum > (im->image_size - eh.e_phoff) / eh.e_phentsize)) {
		*why = "program header table extends past the end of the file (truncated?)";
		return -1;
	}
	if (elf_getshdrnum(im->elf, &im->shnum) || elf_getshdrstrndx(im->elf, &im->shstrndx) ||
	    (im->shnum && eh.e_shoff > im->image_size) ||
	    (im->shnum && (im->image_size - eh.e_shoff) / (eh.e_shentsize ? eh.e_shentsize : 1) <
	     im->shnum)) {
		*why = "truncated or corrupt section header table";
		return -1;
	}
	if (im->shnum > 1000000) {
		*why = "implausible number of sections";
		return -1;
	}
	return 0;
}

/* The sizes and marks a section adds to obj (name: its name). */
static void note_section(struct image *im, Elf_Scn *scn, const GElf_Shdr *sh, const char *name,
			 struct elfrec_object *obj)
{
	if (!strncmp(name, ".gnu.lto_", 9))
		obj->is_lto = 1;
	if (sh->sh_type == SHT_SYMTAB) {
		im->symtab = scn;
		im->symsh = *sh;
		obj->has_symtab = 1;
	} else if (sh->sh_type == SHT_DYNSYM) {
		im->dynsym = scn;
		im->dynsh = *sh;
		obj->has_dynsym = 1;
	}
	if ((sh->sh_flags & SHF_ALLOC) && !(sh->sh_flags & SHF_WRITE) && sh->sh_type != SHT_NOBITS)
		obj->readonly_size += sh->sh_size;
	if (!strcmp(name, ".text"))
		obj->dot_text_size = sh->sh_size;
	if (!strcmp(name, ".rela.text"))
		obj->rela_text_size = sh->sh_size;
	if (!strcmp(name, ".note.bolt_info"))
		obj->bolt_rewritten = 1;
	if ((sh->sh_flags & SHF_EXECINSTR) && sh->sh_type != SHT_NOBITS) {
		obj->text_size += sh->sh_size;
		if (elfrec_section_is(name, ".text.hot"))
			obj->text_hot_size += sh->sh_size;
		else if (elfrec_section_is(name, ".text.unlikely"))
			obj->text_unlikely_size += sh->sh_size;
		else if (elfrec_section_is(name, ".text.startup"))
			obj->text_startup_size += sh->sh_size;
	}
}

/* The records of .GCC.command.line (the strings) and .pgopt.log (the
 * lines) into obj.  0, or -1 with *why set. */
static int read_records(struct image *im, Elf_Scn *scn, const GElf_Shdr *sh, const char *name,
			struct elfrec_object *obj, const char **why)
{
	Elf_Data *d = section_data(scn, sh, im->image_size);

	if (!d && sh->sh_size) {
		*why = "cannot read section data";
		return -1;
	}
	if (d && d->d_buf && d->d_size) {
		if (name[1] == 'G')
			split_strings(d->d_buf, d->d_size, &obj->cmdlines, &obj->ncmdlines);
		else
			split_lines(d->d_buf, d->d_size, &obj->log, &obj->nlog);
	}
	return 0;
}

/* Section i: its name kept in im->secnames, its bounds checked, and what
 * it tells read into obj.  0, or -1 with *why set. */
static int read_section(struct image *im, size_t i, struct elfrec_object *obj, const char **why)
{
	Elf_Scn *scn = elf_getscn(im->elf, i);
	GElf_Shdr sh;
	const char *name;

	if (!scn || !gelf_getshdr(scn, &sh)) {
		*why = "corrupt section header";
		return -1;
	}
	name = elf_strptr(im->elf, im->shstrndx, sh.sh_name);
	if (!name) {
		*why = "corrupt section name table";
		return -1;
	}
	im->secnames[i] = xstrdup(name);
	if (sh.sh_type != SHT_NOBITS &&
	    (sh.sh_offset > im->image_size || sh.sh_size > im->image_size - sh.sh_offset)) {
		*why = "section extends past the end of the file (truncated?)";
		return -1;
	}
	note_section(im, scn, &sh, name, obj);
	if (!strcmp(name, ".debug_info"))
		read_dwarf_version(scn, &sh, im->image_size, obj);
	if (sh.sh_type == SHT_DYNAMIC)
		read_bind_now(scn, &sh, im->image_size, obj);
	if (sh.sh_type == SHT_DYNAMIC && (im->flags & ELFREC_DYNAMIC) &&
	    read_dynamic(im->elf, scn, &sh, im->image_size, obj) < 0) {
		*why = "corrupt dynamic section";
		return -1;
	}
	if (sh.sh_type == SHT_NOTE && !obj->build_id[0])
		read_build_id(scn, &sh, im->image_size, obj);
	if (!(im->flags & ELFREC_SIZES_ONLY) &&
	    (!strcmp(name, ".GCC.command.line") || !strcmp(name, ".pgopt.log")))
		return read_records(im, scn, &sh, name, obj, why);
	return 0;
}

/* After the sections: the dynamic view and the function symbols (of
 * .symtab, else of .dynsym), as the flags ask.  0, or -1 with *why set. */
static int read_image_symbols(struct image *im, struct elfrec_object *obj, const char **why)
{
	Elf_Scn *symtab = im->flags & ELFREC_DYNSYM ? NULL : im->symtab;

	if (im->flags & ELFREC_DYNAMIC) {
		obj->is_program = has_interp(im->elf);
		if (im->dynsym &&
		    read_dynsyms(im->elf, im->dynsym, &im->dynsh, im->image_size, obj) < 0) {
			*why = "corrupt dynamic symbol table";
			return -1;
		}
	}
	if (im->flags & ELFREC_SIZES_ONLY)
		return 0;
	if (symtab && read_symbols(im->elf, symtab, &im->symsh, im->image_size, im->shnum,
				   im->secnames, obj)) {
		*why = "corrupt symbol table";
		return -1;
	}
	if (!symtab && im->dynsym && read_symbols(im->elf, im->dynsym, &im->dynsh, im->image_size,
						  im->shnum, im->secnames, obj)) {
		*why = "corrupt dynamic symbol table";
		return -1;
	}
	return 0;
}

/* Read one ELF image into obj (what flags ask for).  Returns 0 or -1 with
 * *why set. */
static int read_image(Elf *elf, unsigned flags, struct elfrec_object *obj, const char **why)
{
	struct image im = { .elf = elf, .flags = flags };
	int rc = read_header(&im, obj, why);

	if (rc)
		return rc > 0 ? 0 : -1;
	im.secnames = xcalloc(im.shnum ? im.shnum : 1, sizeof(*im.secnames));
	for (size_t i = 1; rc == 0 && i < im.shnum; i++)
		rc = read_section(&im, i, obj, why);
	if (rc == 0)
		rc = read_image_symbols(&im, obj, why);
	for (size_t i = 0; i < im.shnum; i++)
		free(im.secnames[i]);
	free(im.secnames);
	return rc;
}

static void object_release(struct elfrec_object *obj)
{
	free(obj->member);
	for (size_t i = 0; i < obj->ncmdlines; i++)
		free(obj->cmdlines[i]);
	free(obj->cmdlines);
	for (size_t i = 0; i < obj->nlog; i++)
		free(obj->log[i]);
	free(obj->log);
	for (size_t i = 0; i < obj->nfuncs; i++) {
		free(obj->funcs[i].name);
		free(obj->funcs[i].section);
		free(obj->funcs[i].file);
	}
	free(obj->funcs);
	free(obj->records_from);
	for (size_t i = 0; i < obj->nneeded; i++)
		free(obj->needed[i]);
	free(obj->needed);
	free(obj->soname);
	free(obj->runpath);
	for (size_t i = 0; i < obj->ndynsyms; i++)
		free(obj->dynsyms[i].name);
	free(obj->dynsyms);
	memset(obj, 0, sizeof(*obj));
}

/*
 * The records of obj (a plain file without any) from below the debug
 * directory: its side file DIR/.build-id/XX/REST.pgopt (records = side),
 * else its separate debug file REST.debug when that holds them (rpm's
 * find-debuginfo strips the records out of a binary into it; Debian's
 * dh_strip keeps only debug sections there, so none).  0, or -1 with err
 * set: a file at that place of another build-id.
 */
static int read_side_file(const char *path, struct elfrec_object *obj, struct strbuf *err)
{
	static const char *const suffix[] = { "pgopt", "debug" };
	const char *dir = debug_dir;
	int rc = 0;

	if (!dir || obj->nlog || obj->ncmdlines || !obj->build_id[0])
		return 0;
	for (size_t k = 0; k < sizeof(suffix) / sizeof(suffix[0]) && rc == 0 && !obj->records_from; k++) {
		struct elfrec_file sf;
		char *side = xasprintf("%s/.build-id/%.2s/%s.%s", dir, obj->build_id,
				       obj->build_id + 2, suffix[k]);

		if (access(side, F_OK) < 0) {
			free(side);
			continue;
		}
		/* .build-id entries are links into the debug tree (rpm's and
		 * Debian's layout): followed only to a file below dir */
		{
			char *real = realpath(side, NULL), *rdir = realpath(dir, NULL);
			size_t n = rdir ? strlen(rdir) : 0;
			if (!real || !rdir || strncmp(real, rdir, n) || real[n] != '/') {
				char msg[512];
				snprintf(msg, sizeof(msg), "its %s file %s leads outside %s",
					 k ? "debug" : "side", side, dir);
				free(real);
				free(rdir);
				free(side);
				rc = elfrec_fail(err, path, NULL, msg);
				break;
			}
			free(rdir);
			free(side);
			side = real;
		}
		debug_dir = NULL; /* the side file's own lookup: none */
		rc = elfrec_open(side, &sf, err);
		debug_dir = dir;
		if (rc == 0 && (sf.nr != 1 || strcmp(sf.objs[0].build_id, obj->build_id))) {
			char msg[512];
			snprintf(msg, sizeof(msg), "its %s file %s is of build-id %s, not %s",
				 k ? "debug" : "side", side,
				 sf.nr == 1 && sf.objs[0].build_id[0] ? sf.objs[0].build_id : "(none)",
				 obj->build_id);
			rc = elfrec_fail(err, path, NULL, msg);
		} else if (rc == 0 && (sf.objs[0].nlog || sf.objs[0].ncmdlines)) {
			obj->log = sf.objs[0].log;
			obj->nlog = sf.objs[0].nlog;
			obj->cmdlines = sf.objs[0].cmdlines;
			obj->ncmdlines = sf.objs[0].ncmdlines;
			sf.objs[0].log = NULL;
			sf.objs[0].cmdlines = NULL;
			sf.objs[0].nlog = sf.objs[0].ncmdlines = 0;
			obj->records_from = side;
			side = NULL;
		}
		if (sf.path)
			elfrec_release(&sf);
		free(side);
	}
	return rc;
}

void elfrec_release(struct elfrec_file *f)
{
	for (size_t i = 0; i < f->nr; i++)
		object_release(&f->objs[i]);
	free(f->objs);
	free(f->path);
	memset(f, 0, sizeof(*f));
}

int elfrec_open(const char *path, struct elfrec_file *f, struct strbuf *err)
{
	return elfrec_open_flags(path, 0, f, err);
}

/* libelf's version handshake, once per process.  0, or -1 with err set
 * (naming path, the file that needed it). */
static int libelf_ready(const char *path, struct strbuf *err)
{
	static int initialized;

	if (!initialized) {
		if (elf_version(EV_CURRENT) == EV_NONE)
			return elfrec_fail(err, path, NULL, "libelf is out of date");
		initialized = 1;
	}
	return 0;
}

/* path opened through the bounded reader (a regular file, no link
 * followed at its end): the descriptor, or -1 with err set to "PATH:
 * REASON", as every message of this file. */
static int open_elf_input(const char *path, struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT;
	struct stat st;
	int fd = sfs_open_input_as(AT_FDCWD, path, "", SFS_IN_BINARY, 0, &st, &why);

	if (fd < 0)
		fd = elfrec_fail(err, path, NULL, why.buf + strlen("cannot read : "));
	strbuf_release(&why);
	return fd;
}

/* Every member of the archive elf (fd its descriptor) with a name of its
 * own (not the symbol or name table) into f->objs.  0, or -1 with err set
 * naming the member. */
static int read_archive(Elf *elf, int fd, unsigned flags, struct elfrec_file *f,
			struct strbuf *err)
{
	Elf *member;
	Elf_Cmd cmd = ELF_C_READ_MMAP;
	size_t alloc = 0;

	f->is_archive = 1;
	while ((member = elf_begin(fd, cmd, elf)) != NULL) {
		Elf_Arhdr *ah = elf_getarhdr(member);
		const char *why = NULL;
		if (ah && ah->ar_name && ah->ar_name[0] != '/') {
			struct elfrec_object *obj;
			ALLOC_GROW(f->objs, f->nr + 1, alloc);
			obj = &f->objs[f->nr++];
			memset(obj, 0, sizeof(*obj));
			obj->member = xstrdup(ah->ar_name);
			if (read_image(member, flags, obj, &why)) {
				elfrec_fail(err, f->path, ah->ar_name, why);
				elf_end(member);
				return -1;
			}
		}
		cmd = elf_next(member);
		elf_end(member);
	}
	if (elf_errno() && !f->nr)
		return elfrec_fail(err, f->path, NULL, "corrupt archive");
	return 0;
}

/* The one image elf into f->objs[0], and its records from the debug
 * directory when it carries none (not with ELFREC_SIZES_ONLY).  0, or -1
 * with err set. */
static int read_single(Elf *elf, unsigned flags, struct elfrec_file *f, struct strbuf *err)
{
	const char *why = NULL;

	f->objs = xcalloc(1, sizeof(*f->objs));
	f->nr = 1;
	if (read_image(elf, flags, &f->objs[0], &why))
		return elfrec_fail(err, f->path, NULL, why);
	if (!(flags & ELFREC_SIZES_ONLY) && read_side_file(f->path, &f->objs[0], err) < 0)
		return -1;
	return 0;
}

int elfrec_open_flags(const char *path, unsigned flags, struct elfrec_file *f,
		      struct strbuf *err)
{
	Elf *elf;
	int fd, rc;

	memset(f, 0, sizeof(*f));
	if (libelf_ready(path, err) < 0)
		return -1;
	fd = open_elf_input(path, err);
	if (fd < 0)
		return -1;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf) {
		close(fd);
		return elfrec_fail(err, path, NULL, "not an ELF file or archive");
	}
	f->path = xstrdup(path);
	if (elf_kind(elf) == ELF_K_AR)
		rc = read_archive(elf, fd, flags, f, err);
	else
		rc = read_single(elf, flags, f, err);
	elf_end(elf);
	close(fd);
	if (rc < 0)
		elfrec_release(f);
	return rc;
}

long elfrec_units(const struct elfrec_object *obj, struct elfrec_unit **units,
		  struct strbuf *err)
{
	struct elfrec_unit *v = NULL;
	size_t nr = 0, alloc = 0, fn_alloc = 0;
	struct strbuf perr = STRBUF_INIT;

	for (size_t i = 0; i < obj->nlog; i++) {
		struct json_value *jv = json_parse(obj->log[i], strlen(obj->log[i]), &perr);
		const char *kind;
		if (!jv || jv->type != JSON_OBJECT) {
			if (err) {
				strbuf_reset(err);
				strbuf_addf(err, ".pgopt.log line %zu: %s", i + 1,
					    jv ? "not a JSON object" : perr.buf);
			}
			json_free(jv);
			goto fail;
		}
		kind = json_get_str(jv, "kind");
		if (kind && !strcmp(kind, "unit")) {
			ALLOC_GROW(v, nr + 1, alloc);
			memset(&v[nr], 0, sizeof(v[nr]));
			v[nr++].unit = jv;
			fn_alloc = 0;
		} else if (kind && !strcmp(kind, "fn") && nr) {
			struct elfrec_unit *u = &v[nr - 1];
			ALLOC_GROW(u->fns, u->nfns + 1, fn_alloc);
			u->fns[u->nfns++] = jv;
		} else {
			if (err) {
				strbuf_reset(err);
				strbuf_addf(err, ".pgopt.log line %zu: %s", i + 1,
					    kind && !strcmp(kind, "fn") ?
					    "function record before any unit record" :
					    "unknown record kind");
			}
			json_free(jv);
			goto fail;
		}
	}
	strbuf_release(&perr);
	*units = v;
	return (long)nr;
fail:
	strbuf_release(&perr);
	elfrec_units_free(v, nr);
	*units = NULL;
	return -1;
}

void elfrec_units_free(struct elfrec_unit *units, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		json_free(units[i].unit);
		for (size_t k = 0; k < units[i].nfns; k++)
			json_free(units[i].fns[k]);
		free(units[i].fns);
	}
	free(units);
}

static const char *base_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

const struct elfrec_func *elfrec_find_func(const struct elfrec_object *obj,
					   const char *name, const char *file)
{
	const struct elfrec_func *only = NULL, *scoped = NULL, *global = NULL;
	size_t matches = 0, nscoped = 0, nglobal = 0;
	const char *want = file && *file ? base_of(file) : NULL;

	for (size_t i = 0; i < obj->nfuncs; i++) {
		const struct elfrec_func *f = &obj->funcs[i];
		if (strcmp(f->name, name))
			continue;
		matches++;
		only = f;
		if (f->global) {
			global = f;
			nglobal++;
		} else if (want && f->file[0] && !strcmp(base_of(f->file), want)) {
			scoped = f;
			nscoped++;
		}
	}
	if (matches == 1)
		return only;
	if (nscoped == 1)
		return scoped;
	if (!nscoped && nglobal == 1)
		return global;
	return NULL;
}

int elfrec_unit_is_link_time(const struct json_value *unit)
{
	const char *stage = json_get_str(unit, "stage");
	return stage && (!strcmp(stage, "ltrans") || !strcmp(stage, "wpa") ||
			 !strcmp(stage, "lto"));
}

const struct elfrec_func *elfrec_record_func(const struct elfrec_object *obj,
					     const struct json_value *unit,
					     const struct json_value *fn)
{
	const char *name = json_get_str(fn, "name");
	const char *file = json_get_str(unit, "tu");
	if (!name || obj->is_lto)
		return NULL;
	if (!file || elfrec_unit_is_link_time(unit))
		file = json_get_str(fn, "file");
	return elfrec_find_func(obj, name, file);
}
