/*
 * vocab.c - the policy vocabulary; see vocab.h.
 *
 * Keep the table sorted by strcmp() order of the name (the unit test
 * checks).  Flags no row covers are not optimization options.  The rows
 * for -f, -m, -O, -g and -W allow whole families; the rows below them
 * carve out what loads code, names a path or changes the output.  -Wl,
 * has no row: its linker options are checked one by one against the
 * vetted lists below the table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wrapper/policy/vocab.h"
#include "wrapper/common/xalloc.h"

static const struct vocab_row rows[] = {
	{ "--for-assembler",             VOCAB_PREFIX,              VOCAB_OUTPUT, "options for the assembler, unchecked" },
	{ "--for-linker",                VOCAB_PREFIX,              VOCAB_OUTPUT, "options for the linker, unchecked" },
	{ "--imacros",                   VOCAB_PREFIX,              VOCAB_PATH,  "a file to include" },
	{ "--include",                   VOCAB_PREFIX,              VOCAB_PATH,  "a file to include or an include directory" },
	{ "--language",                  VOCAB_PREFIX,              VOCAB_OUTPUT, "the language the input is read as" },
	{ "--library-directory",         VOCAB_PREFIX,              VOCAB_PATH,  "a library directory" },
	{ "--output",                    VOCAB_PREFIX,              VOCAB_OUTPUT, "the output file" },
	{ "--param",                     0,                         VOCAB_OTHER, "write --param=NAME=VALUE as one word" },
	{ "--param=",                    VOCAB_PREFIX,              VOCAB_OK,    NULL },
	{ "--prefix",                    VOCAB_PREFIX,              VOCAB_CODE,  "where the driver finds cc1, as and ld" },
	{ "--preprocess",                0,                         VOCAB_OUTPUT, "preprocessed source instead of an object" },
	{ "--save-temps",                VOCAB_PREFIX,              VOCAB_OUTPUT, "intermediate files kept" },
	{ "--specs",                     VOCAB_PREFIX,              VOCAB_CODE,  "a specs file can run any program" },
	{ "--sysroot",                   VOCAB_PREFIX,              VOCAB_PATH,  "the system root" },
	{ "-B",                          VOCAB_PREFIX,              VOCAB_CODE,  "where the driver finds cc1, as and ld" },
	{ "-D",                          VOCAB_PREFIX,              VOCAB_OTHER, "a macro definition changes the program, not how it is optimized" },
	{ "-E",                          0,                         VOCAB_OUTPUT, "preprocessed source instead of an object" },
	{ "-I",                          VOCAB_PREFIX,              VOCAB_PATH,  "an include directory" },
	{ "-L",                          VOCAB_PREFIX,              VOCAB_PATH,  "a library directory" },
	{ "-M",                          VOCAB_PREFIX,              VOCAB_OUTPUT, "dependency information" },
	{ "-O",                          VOCAB_PREFIX,              VOCAB_OK,    NULL },
	{ "-S",                          0,                         VOCAB_OUTPUT, "assembler code instead of an object" },
	{ "-T",                          VOCAB_PREFIX,              VOCAB_PATH,  "a linker script" },
	{ "-U",                          VOCAB_PREFIX,              VOCAB_OTHER, "a macro definition changes the program, not how it is optimized" },
	{ "-W",                          VOCAB_PREFIX,              VOCAB_OK,    NULL },
	{ "-Wa,",                        VOCAB_PREFIX,              VOCAB_OUTPUT, "options for the assembler, unchecked" },
	{ "-Wp,",                        VOCAB_PREFIX,              VOCAB_OUTPUT, "options for the preprocessor, unchecked" },
	{ "-X",                          VOCAB_PREFIX,              VOCAB_OUTPUT, "an option for another program, unchecked" },
	{ "-c",                          0,                         VOCAB_OUTPUT, "a compile instead of a link" },
	{ "-dump",                       VOCAB_PREFIX,              VOCAB_OUTPUT, "what the driver does or where it writes" },
	{ "-f",                          VOCAB_PREFIX,              VOCAB_OK,    NULL },
	{ "-fauto-profile",              VOCAB_PREFIX,              VOCAB_OUTPUT, "profile instrumentation or feedback: pgbuild pgo adds it through PGOPT_PROFILE" },
	{ "-fbranch-probabilities",      0,                         VOCAB_OUTPUT, "profile instrumentation or feedback: pgbuild pgo adds it through PGOPT_PROFILE" },
	{ "-fcallgraph-info",            VOCAB_PREFIX,              VOCAB_OUTPUT, ".ci files" },
	{ "-fcompare-debug",             VOCAB_PREFIX,              VOCAB_OUTPUT, "a second compile and dump files" },
	{ "-fcoverage",                  VOCAB_PREFIX,              VOCAB_OUTPUT, "profile instrumentation or feedback: pgbuild pgo adds it through PGOPT_PROFILE" },
	{ "-fcrash-diagnostics",         VOCAB_PREFIX,              VOCAB_PATH,  "where crash reports go" },
	{ "-fdebug-prefix-map",          VOCAB_PREFIX,              VOCAB_PATH,  "a rewrite of the paths recorded in the object" },
	{ "-fdeps-",                     VOCAB_PREFIX,              VOCAB_OUTPUT, "dependency files" },
	{ "-fdiagnostics-add-output",    VOCAB_PREFIX,              VOCAB_OUTPUT, "diagnostics written to a file" },
	{ "-fdiagnostics-format",        VOCAB_PREFIX,              VOCAB_OUTPUT, "diagnostics written to a file" },
	{ "-fdiagnostics-set-output",    VOCAB_PREFIX,              VOCAB_OUTPUT, "diagnostics written to a file" },
	{ "-fdirectives-only",           0,                         VOCAB_OUTPUT, "preprocessing of directives only" },
	{ "-fdump",                      VOCAB_PREFIX,              VOCAB_OUTPUT, "dump files" },
	{ "-fexec-charset=",               VOCAB_PREFIX,              VOCAB_OTHER, "the program's string constants in another character set" },
	{ "-ffile-prefix-map",           VOCAB_PREFIX,              VOCAB_PATH,  "a rewrite of the paths recorded in the object" },
	{ "-fgnu-tm",                    0,                         VOCAB_CODE,  "libitm" },
	{ "-finput-charset=",              VOCAB_PREFIX,              VOCAB_OTHER, "the source read in another character set" },
	{ "-flinker-output",             VOCAB_PREFIX,              VOCAB_OUTPUT, "what the link produces" },
	{ "-flto",                       VOCAB_PREFIX,              VOCAB_OK,    NULL },
	{ "-fltrans",                    VOCAB_PREFIX,              VOCAB_OUTPUT, "an internal option of the LTO driver" },
	{ "-fmacro-prefix-map",          VOCAB_PREFIX,              VOCAB_PATH,  "a rewrite of the paths recorded in the object" },
	{ "-fmodule",                    VOCAB_PREFIX,              VOCAB_CODE,  "a module mapper, which can be any program" },
	{ "-foffload",                   VOCAB_PREFIX,              VOCAB_CODE,  "offload compilers" },
	{ "-fopenacc",                   VOCAB_PREFIX,              VOCAB_CODE,  "libgomp" },
	{ "-fopenmp",                    0,                         VOCAB_CODE,  "libgomp" },
	{ "-fpass-plugin",               VOCAB_PREFIX,              VOCAB_CODE,  "a compiler plugin" },
	{ "-fplugin",                    VOCAB_PREFIX,              VOCAB_CODE,  "a GCC plugin" },
	{ "-fpreprocessed",              0,                         VOCAB_OUTPUT, "the input read as preprocessed" },
	{ "-fprofile",                   VOCAB_PREFIX,              VOCAB_OUTPUT, "profile instrumentation or feedback: pgbuild pgo adds it through PGOPT_PROFILE" },
	{ "-fresolution",                VOCAB_PREFIX,              VOCAB_OUTPUT, "an internal option of the LTO driver" },
	{ "-fsanitize",                  VOCAB_PREFIX,              VOCAB_CODE,  "a sanitizer runtime" },
	{ "-fsave-optimization-record",  VOCAB_PREFIX,              VOCAB_OUTPUT, ".opt-record files" },
	{ "-fself-test",                 VOCAB_PREFIX,              VOCAB_PATH,  "a directory of test data" },
	{ "-fsplit-stack",               0,                         VOCAB_CODE,  "the split-stack runtime" },
	{ "-fstack-usage",               0,                         VOCAB_OUTPUT, ".su files" },
	{ "-fsyntax-only",               0,                         VOCAB_OUTPUT, "no object at all" },
	{ "-ftest-coverage",             0,                         VOCAB_OUTPUT, "profile instrumentation or feedback: pgbuild pgo adds it through PGOPT_PROFILE" },
	{ "-fuse-ld=",                   VOCAB_PREFIX,              VOCAB_CODE,  "another linker program; ldflags may name -fuse-ld=bfd, gold, lld or mold" },
	{ "-fuse-ld=bfd",                VOCAB_LINK_ONLY,           VOCAB_OK,    NULL },
	{ "-fuse-ld=gold",               VOCAB_LINK_ONLY,           VOCAB_OK,    NULL },
	{ "-fuse-ld=lld",                VOCAB_LINK_ONLY,           VOCAB_OK,    NULL },
	{ "-fuse-ld=mold",               VOCAB_LINK_ONLY,           VOCAB_OK,    NULL },
	{ "-fuse-linker-plugin",         0,                         VOCAB_OK,    NULL },
	{ "-fvtable-verify",             VOCAB_PREFIX,              VOCAB_CODE,  "libvtv" },
	{ "-fwide-exec-charset=",          VOCAB_PREFIX,              VOCAB_OTHER, "the program's wide string constants in another character set" },
	{ "-fwpa",                       VOCAB_PREFIX,              VOCAB_OUTPUT, "an internal option of the LTO driver" },
	{ "-fxray",                      VOCAB_PREFIX,              VOCAB_CODE,  "the XRay runtime" },
	{ "-g",                          VOCAB_PREFIX,              VOCAB_OK,    NULL },
	{ "-gsplit-dwarf",               0,                         VOCAB_OUTPUT, ".dwo files beside the object" },
	{ "-i",                          VOCAB_PREFIX,              VOCAB_PATH,  "a file to include or an include directory" },
	{ "-iplugindir",                 VOCAB_PREFIX,              VOCAB_CODE,  "where GCC finds plugins" },
	{ "-l",                          VOCAB_PREFIX,              VOCAB_CODE,  "a library" },
	{ "-m",                          VOCAB_PREFIX,              VOCAB_OK,    NULL },
	{ "-no-pie",                     VOCAB_LINK_ONLY,           VOCAB_OK,    NULL },
	{ "-o",                          VOCAB_PREFIX,              VOCAB_OUTPUT, "the output file" },
	{ "-p",                          0,                         VOCAB_OUTPUT, "gprof instrumentation" },
	{ "-pedantic",                   VOCAB_PREFIX,              VOCAB_OK,    NULL },
	{ "-pg",                         0,                         VOCAB_OUTPUT, "gprof instrumentation" },
	{ "-pie",                        VOCAB_LINK_ONLY,           VOCAB_OK,    NULL },
	{ "-save-temps",                 VOCAB_PREFIX,              VOCAB_OUTPUT, "intermediate files kept" },
	{ "-specs",                      VOCAB_PREFIX,              VOCAB_CODE,  "a specs file can run any program" },
	{ "-w",                          0,                         VOCAB_OK,    NULL },
	{ "-wrapper",                    0,                         VOCAB_CODE,  "another program run around the compiler" },
	{ "-x",                          VOCAB_PREFIX,              VOCAB_OUTPUT, "the language the input is read as" },
};

/* Linker options a policy may pass with -Wl, (in ldflags): what links
 * faster code, or harder code, and nothing that names a file. */
static const char *const link_exact[] = {
	"--as-needed", "--build-id", "--emit-relocs", "--gc-sections", "--no-as-needed",
	"--no-gc-sections", "--no-relax", "--relax", "--sort-common", "-Bsymbolic-functions",
	"-O0", "-O1", "-O2", "-q", NULL,
};
static const char *const link_prefix[] = {
	"--build-id=", "--compress-debug-sections=", "--hash-style=", "--icf=",
	"--sort-section=", NULL,
};
/* ... and after -z (hardening, page layout) */
static const char *const z_exact[] = {
	"combreloc", "defs", "ibt", "lazy", "noexecstack", "nopack-relative-relocs", "norelro",
	"noseparate-code", "now", "pack-relative-relocs", "relro", "separate-code", "shstk",
	"text", NULL,
};
static const char *const z_prefix[] = { "common-page-size=", "max-page-size=", NULL };

#define VETTED_TEXT "-Wl,-O1, --gc-sections, --as-needed, --emit-relocs, --hash-style=, --build-id, --icf=, --sort-common, -z relro, -z now, -z noexecstack ..."

static int in_list(const char *s, const char *const *exact, const char *const *prefix)
{
	for (int i = 0; exact[i]; i++)
		if (!strcmp(s, exact[i]))
			return 1;
	for (int i = 0; prefix && prefix[i]; i++)
		if (!strncmp(s, prefix[i], strlen(prefix[i])) && s[strlen(prefix[i])])
			return 1;
	return 0;
}

const struct vocab_row *vocab_table(size_t *n)
{
	*n = sizeof(rows) / sizeof(rows[0]);
	return rows;
}

/* The longest row covering flag, or NULL. */
static const struct vocab_row *find_row(const char *flag)
{
	const struct vocab_row *best = NULL;
	size_t best_len = 0;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		size_t n = strlen(rows[i].name);
		int match = rows[i].flags & VOCAB_PREFIX ? !strncmp(flag, rows[i].name, n)
							 : !strcmp(flag, rows[i].name);
		if (match && n >= best_len) {
			best = &rows[i];
			best_len = n;
		}
	}
	return best;
}

static enum vocab_class refuse(enum vocab_class cls, const char *detail, struct strbuf *why)
{
	static const char *const text[] = {
		[VOCAB_CODE] = "it loads code",
		[VOCAB_PATH] = "it names a path",
		[VOCAB_OUTPUT] = "it changes what the compiler produces",
		[VOCAB_OTHER] = "it is not an optimization option",
	};
	strbuf_addstr(why, text[cls]);
	if (detail)
		strbuf_addf(why, " (%s)", detail);
	return cls;
}

/* -Wl,A,B,...: every linker option from the vetted lists. */
static enum vocab_class check_wl(const char *flag, struct strbuf *why)
{
	char buf[1024];
	const char *p = flag + 4;
	int after_z = 0;

	if (!*p)
		return refuse(VOCAB_OTHER, "-Wl, without a linker option", why);
	while (*p) {
		size_t n = strcspn(p, ",");
		int ok;
		snprintf(buf, sizeof(buf), "%.*s", (int)(n < sizeof(buf) ? n : sizeof(buf) - 1), p);
		if (n >= sizeof(buf) || strchr(buf, '/'))
			ok = 0;
		else if (after_z)
			ok = in_list(buf, z_exact, z_prefix);
		else if (!strcmp(buf, "-z"))
			ok = after_z = 1;
		else if (!strncmp(buf, "-z", 2))
			ok = in_list(buf + 2, z_exact, z_prefix);
		else
			ok = in_list(buf, link_exact, link_prefix);
		if (!ok) {
			struct strbuf d = STRBUF_INIT;
			enum vocab_class cls = VOCAB_OTHER;
			if (strstr(buf, "plugin"))
				cls = VOCAB_CODE;
			else if (strchr(buf, '/') || !strncmp(buf, "-rpath", 6) ||
				 !strcmp(buf, "-T") || !strncmp(buf, "--script", 8) ||
				 !strncmp(buf, "--dynamic-linker", 16) || !strncmp(buf, "-L", 2))
				cls = VOCAB_PATH;
			strbuf_addf(&d, "the linker option %s%s is outside the vetted set: " VETTED_TEXT,
				    after_z ? "-z " : "", buf);
			refuse(cls, d.buf, why);
			strbuf_release(&d);
			return cls;
		}
		if (after_z && strcmp(buf, "-z"))
			after_z = 0;
		p += n;
		if (*p == ',')
			p++;
	}
	if (after_z)
		return refuse(VOCAB_OTHER, "-z without its keyword", why);
	return VOCAB_OK;
}

enum vocab_class vocab_check(const char *flag, int link, struct strbuf *why)
{
	const struct vocab_row *row;
	const char *f = flag, *eq;
	char *norm = NULL;
	enum vocab_class cls;

	if (!strncmp(flag, "-Wl,", 4)) {
		if (!link) {
			strbuf_addf(why, "it is a link option: write it as ldflags += %s", flag);
			return VOCAB_OTHER;
		}
		return check_wl(flag, why);
	}
	/* -fno-X is the same setting as -fX */
	if (!strncmp(flag, "-fno-", 5)) {
		norm = xasprintf("-f%s", flag + 5);
		f = norm;
	}
	row = find_row(f);
	eq = strchr(f, '=');
	if (!row) {
		cls = refuse(VOCAB_OTHER, NULL, why);
	} else if (row->cls != VOCAB_OK) {
		cls = refuse(row->cls, row->why, why);
	} else if ((row->flags & VOCAB_LINK_ONLY) && !link) {
		strbuf_addf(why, "it is a link option: write it as ldflags += %s", flag);
		cls = VOCAB_OTHER;
	} else if (eq && (f[1] == 'f' || f[1] == 'm') && strchr(eq, '/')) {
		/* a family option with a value: never a path */
		cls = refuse(VOCAB_PATH, "its value is a path", why);
	} else if (!strncmp(f, "-fopt-info", 10) && eq) {
		/* ... never a file to write */
		cls = refuse(VOCAB_OUTPUT, "-fopt-info with a file writes to it", why);
	} else {
		cls = VOCAB_OK;
	}
	free(norm);
	return cls;
}
