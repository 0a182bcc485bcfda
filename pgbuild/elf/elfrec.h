/*
 * elfrec.h - read what pgoptcc leaves in ELF files, with libelf.
 *
 * An object file, a static archive (each member), an executable or a shared
 * library is opened into a struct elfrec_file holding one struct
 * elfrec_object per ELF image, with:
 *   - the .GCC.command.line strings (-frecord-gcc-switches);
 *   - the .pgopt.log lines written by pgopt.so (JSON lines: a "unit" line
 *     followed by its "fn" lines; a linked binary holds the concatenation of
 *     all its objects' records, plus the link-time (ltrans) records);
 *   - every function symbol with its size and section name;
 *   - whether the code's relocations were kept (.rela.text, --emit-relocs)
 *     and whether BOLT wrote the file (.note.bolt_info);
 *   - the summed sizes of the text sections (.text*, .text.hot*,
 *     .text.unlikely*, .text.startup*), of .text alone, and the
 *     Berkeley-style text size (what `size` prints as text: every
 *     allocated, read-only section with contents).
 *
 * elfrec_open_flags() reads less or otherwise: ELFREC_SIZES_ONLY (section
 * sizes only: no symbols, no records), ELFREC_DYNSYM (function symbols
 * from .dynsym even when .symtab exists: what a stripped build exports),
 * ELFREC_DYNAMIC (also the dynamic linking view: the DT_NEEDED libraries,
 * DT_SONAME, DT_RUNPATH/DT_RPATH, whether it is a program (PT_INTERP),
 * and every .dynsym symbol it defines for others or leaves undefined, of
 * any type: what the dynamic linker matches; the package comparison,
 * build/pkgcompare.h).
 *
 *     struct elfrec_file f;
 *     struct strbuf err = STRBUF_INIT;
 *     if (elfrec_open("postgres", &f, &err) < 0)
 *             die(2, "%s", err.buf);
 *     for (size_t i = 0; i < f.nr; i++) { struct elfrec_object *o = &f.objs[i]; ... }
 *     elfrec_release(&f);
 *
 * elfrec_units() then groups an object's .pgopt.log lines into translation
 * units with parsed JSON.
 *
 * Robustness: input is untrusted.  Anything that is not ELF, a truncated
 * file, section or string table offsets outside the file, or a record that
 * is not valid JSON gives -1 and one line of text in err ("PATH: what is
 * wrong"), never a crash.  Nothing is printed.
 */
#ifndef PGBUILD_ELFREC_H
#define PGBUILD_ELFREC_H

#include <stddef.h>
#include <stdint.h>

#include "wrapper/common/json.h"
#include "wrapper/common/strbuf.h"

/* One function symbol (STT_FUNC, from .symtab, else .dynsym). */
struct elfrec_func {
	char *name;      /* symbol name */
	uint64_t addr;   /* st_value: its address (aliases share one) */
	uint64_t size;   /* st_size in bytes */
	char *section;   /* name of its section; "" when undefined/absolute */
	int global;      /* 1 for GLOBAL/WEAK binding, 0 for LOCAL */
	char *file;      /* LOCAL: name of the STT_FILE symbol before it (the
			  * source file gcc compiled, e.g. "tuplesort.c"; ""
			  * when none or for LTO's artificial units); GLOBAL:
			  * "" */
};

/* One symbol of .dynsym (ELFREC_DYNAMIC), without its version. */
struct elfrec_dynsym {
	char *name;      /* symbol name */
	int defined;     /* 1: defined here and visible to others (GLOBAL,
			  * WEAK or GNU_UNIQUE binding); 0: undefined here */
	int weak;        /* WEAK binding (an undefined weak symbol may stay
			  * unresolved at run time) */
};

/* One ELF image: a plain file, or one archive member. */
struct elfrec_object {
	char *member;          /* archive member name; NULL for a plain file */
	int elf_type;          /* ET_REL, ET_EXEC or ET_DYN */
	int is_lto;            /* has .gnu.lto_* sections (IR, not code) */
	char **cmdlines;       /* .GCC.command.line strings */
	size_t ncmdlines;
	char **log;            /* .pgopt.log lines, without '\n' */
	size_t nlog;
	struct elfrec_func *funcs; /* function symbols, in symbol-table order */
	size_t nfuncs;
	uint64_t text_size;          /* all executable sections */
	uint64_t text_hot_size;      /* .text.hot and .text.hot.* */
	uint64_t text_unlikely_size; /* .text.unlikely and .text.unlikely.* */
	uint64_t text_startup_size;  /* .text.startup and .text.startup.* */
	uint64_t dot_text_size;      /* .text alone */
	uint64_t readonly_size;      /* allocated, not writable, with contents:
				      * `size`'s "text" column */
	uint64_t rela_text_size;     /* .rela.text: the relocations of the code,
				      * kept in an executable only when linked
				      * with --emit-relocs (what BOLT needs) */
	int bolt_rewritten;          /* has .note.bolt_info: written by BOLT */
	int dwarf_version;           /* of .debug_info's first unit; 0: no debug
				      * information; -1: compressed, not read */
	int has_symtab;              /* has a .symtab (not stripped) */
	int has_dynsym;              /* has a .dynsym */
	int bind_now;                /* linked with -z now (binds every symbol
				      * at load, what BOLT's -plt needs) */
	char build_id[129];          /* GNU build-id in hex, or "" */
	char *records_from;          /* the side file its records were read
				      * from (elfrec_set_debug_dir), or NULL */
	/* ELFREC_DYNAMIC only (else empty): */
	char **needed;               /* DT_NEEDED entries, in order */
	size_t nneeded;
	char *soname;                /* DT_SONAME, or NULL */
	char *runpath;               /* DT_RUNPATH, else DT_RPATH, or NULL */
	int is_program;              /* has PT_INTERP: an executable the
				      * dynamic linker starts (not a library
				      * or module) */
	struct elfrec_dynsym *dynsyms; /* .dynsym's named symbols but for
					* LOCAL ones, in table order */
	size_t ndynsyms;
};

struct elfrec_file {
	char *path;                 /* as given to elfrec_open */
	int is_archive;             /* 1 for an ar archive */
	struct elfrec_object *objs; /* one per ELF image */
	size_t nr;                  /* number of objs */
};

/* A translation unit's record from .pgopt.log. */
struct elfrec_unit {
	struct json_value *unit;  /* the "unit" line (object); owned */
	struct json_value **fns;  /* its "fn" lines (objects); owned */
	size_t nfns;
};

/*
 * Open PATH and read everything above.  Returns 0, or -1 with a message in
 * err (f is then empty and needs no release).
 */
int elfrec_open(const char *path, struct elfrec_file *f, struct strbuf *err);
void elfrec_release(struct elfrec_file *f);

/*
 * Records in a side file.  A shipped binary may hold no records of its own:
 * they were moved (objcopy --only-section=.pgopt.log
 * --only-section=.GCC.command.line --only-section=.note.gnu.build-id, then
 * --remove-section of the first two) into DIR/.build-id/XX/REST.pgopt,
 * where XXREST is its GNU build-id in hex, as debug files are
 * (/usr/lib/debug/.build-id/XX/REST.debug).  With a debug directory set,
 * elfrec_open reads the records of a plain file that holds none from its
 * side file, if there is one; the side file must carry the same build-id
 * (else -1: "side file ... is of build-id ..., not ...").  NULL: none.
 */
void elfrec_set_debug_dir(const char *dir);

/* What elfrec_open_flags reads instead of everything. */
#define ELFREC_SIZES_ONLY 0x1  /* section sizes; no symbols, strings or records */
#define ELFREC_DYNSYM     0x2  /* function symbols from .dynsym, not .symtab */
#define ELFREC_DYNAMIC    0x4  /* the dynamic view too: needed, soname, runpath,
				* is_program, dynsyms */

/* elfrec_open with flags (0: the same as elfrec_open). */
int elfrec_open_flags(const char *path, unsigned flags, struct elfrec_file *f,
		      struct strbuf *err);

/*
 * Parse obj's .pgopt.log lines into units: each "unit" line starts a unit,
 * "fn" lines belong to the unit before them.  Returns the number of units
 * (*units is xmalloc'ed, free with elfrec_units_free), or -1 with err set
 * ("line N: ...") when a line is not valid JSON or a "fn" line comes first.
 */
long elfrec_units(const struct elfrec_object *obj, struct elfrec_unit **units,
		  struct strbuf *err);
void elfrec_units_free(struct elfrec_unit *units, size_t n);

/*
 * The function symbol called name in obj that belongs to the source file
 * file (a record's translation unit or function file; NULL when unknown),
 * or NULL.  A linked binary can hold several LOCAL symbols of one name (a
 * static function in two files): a LOCAL symbol is taken only when it is
 * the only symbol of that name, or when the STT_FILE symbol before it
 * names file (compared by base name).  Otherwise the one GLOBAL symbol of
 * that name, if there is exactly one; else NULL (ambiguous, e.g. two
 * static functions of one name in an LTO binary, whose file symbols are
 * artificial).
 */
const struct elfrec_func *elfrec_find_func(const struct elfrec_object *obj,
					   const char *name, const char *file);

/*
 * The symbol of a function record fn (a "fn" line) of the unit record unit
 * in obj, scoped by the source file (compile records: the unit's "tu",
 * whose base name gcc's STT_FILE symbol carries; link-time records: the
 * function's own "file").  NULL for LTO IR objects (no code), unknown and
 * ambiguous names.
 */
const struct elfrec_func *elfrec_record_func(const struct elfrec_object *obj,
					     const struct json_value *unit,
					     const struct json_value *fn);

/* Was this unit record written at link time (LTO: stage lto, wpa, ltrans)? */
int elfrec_unit_is_link_time(const struct json_value *unit);

/* Does section name sec equal prefix or start with prefix "."? */
int elfrec_section_is(const char *sec, const char *prefix);

#endif
