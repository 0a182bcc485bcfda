/*
 * classify.c - the command-line classifier; see classify.h.
 *
 * The rules, in the order they are tried:
 *  1. a query option (--version, -dumpversion, -print-*) means no compile;
 *  2. -###, -wrapper, or an option missing its argument: too hard;
 *  3. no input at all: nothing for a policy to change;
 *  4. -E, or -M/-MM without -MD/-MMD: only the preprocessor runs;
 *  5. an input that is an autoconf or meson probe: configure must see
 *     exactly what plain gcc does, so probes are never changed;
 *  6. -c/-S: exactly one source, in C -> compile; assembler, other
 *     languages or several sources -> passthrough;
 *  7. no -c/-S/-E: a link when every input is an object or library;
 *     compiling and linking in one call is passed through (the policy is
 *     defined per translation unit, and projects we target do not do it).
 */
#include <string.h>

#include "wrapper/classify.h"
#include "wrapper/compopt.h"

static const char *const reason_names[REASON_NR] = {
	[REASON_C_COMPILE] = "c_compile",
	[REASON_C_ASSEMBLE] = "c_assemble",
	[REASON_LINK_EXECUTABLE] = "link_executable",
	[REASON_LINK_SHARED] = "link_shared",
	[REASON_LINK_RELOCATABLE] = "link_relocatable",
	[REASON_QUERY] = "query",
	[REASON_NO_INPUT] = "no_input",
	[REASON_PREPROCESS] = "preprocess",
	[REASON_DEPENDENCY_ONLY] = "dependency_only",
	[REASON_ASSEMBLER] = "assembler",
	[REASON_OTHER_LANGUAGE] = "other_language",
	[REASON_MULTIPLE_SOURCES] = "multiple_sources",
	[REASON_COMPILE_AND_LINK] = "compile_and_link",
	[REASON_STDIN_INPUT] = "stdin_input",
	[REASON_CONFTEST] = "conftest",
	[REASON_MESON_PROBE] = "meson_probe",
	[REASON_PASSTHROUGH_ENV] = "passthrough_env",
	[REASON_TOO_HARD] = "too_hard",
};

const char *classify_reason_name(enum cmd_reason r)
{
	return r < REASON_NR ? reason_names[r] : "unknown";
}

const char *classify_kind_name(enum cmd_kind k)
{
	switch (k) {
	case KIND_COMPILE: return "compile";
	case KIND_LINK: return "link";
	default: return "passthrough";
	}
}

/* What a file name's language is, from -x or the extension. */
enum lang {
	LANG_C,        /* compile it */
	LANG_ASM,      /* .s .S .sx, -x assembler* */
	LANG_OTHER,    /* another language or a header */
	LANG_OBJECT,   /* linker input */
};

static enum lang lang_from_x(const char *x)
{
	if (!strcmp(x, "c"))
		return LANG_C;
	if (!strncmp(x, "assembler", 9))
		return LANG_ASM;
	return LANG_OTHER;
}

static enum lang lang_from_name(const char *path)
{
	const char *base = strrchr(path, '/');
	const char *dot;
	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	if (!dot)
		return LANG_OBJECT;
	dot++;
	if (!strcmp(dot, "c"))
		return LANG_C;
	if (!strcmp(dot, "s") || !strcmp(dot, "S") || !strcmp(dot, "sx"))
		return LANG_ASM;
	static const char *const other[] = {
		"i", "ii", "h", "cc", "cp", "cxx", "cpp", "CPP", "c++", "C", "hh",
		"hpp", "hxx", "H", "m", "mi", "mm", "M", "mii", "f", "for", "f90",
		"f95", "F", "F90", "go", "d", "ads", "adb", "tcc", NULL
	};
	for (int i = 0; other[i]; i++)
		if (!strcmp(dot, other[i]))
			return LANG_OTHER;
	return LANG_OBJECT;
}

enum cmd_reason classify_probe(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (!strncmp(base, "conftest.", 9) || !strcmp(base, "conftest"))
		return REASON_CONFTEST;
	if (strstr(path, "meson-private/") || !strncmp(base, "sanitycheck", 11))
		return REASON_MESON_PROBE;
	return REASON_NR;
}

static void set(struct classification *c, enum cmd_kind k, enum cmd_reason r)
{
	c->kind = k;
	c->reason = r;
}

void classify_args(int argc, const char *const *argv, struct classification *c)
{
	int explicit_lang = -1;   /* -x in effect, or -1 for by-extension */
	int query = 0, too_hard = 0, md = 0, shared = 0, reloc = 0;
	size_t n_c = 0, n_asm = 0, n_other = 0, n_stdin = 0;
	enum cmd_reason probe = REASON_NR;

	memset(c, 0, sizeof(*c));
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const struct compopt *o;
		const char *val = NULL;
		enum lang l;

		if (a[0] != '-' || a[1] == '\0') {
			/* an input file ("-" is standard input) */
			if (!strcmp(a, "-")) {
				n_stdin++;
				continue;
			}
			l = explicit_lang >= 0 ? (enum lang)explicit_lang : lang_from_name(a);
			if (classify_probe(a) != REASON_NR)
				probe = classify_probe(a);
			switch (l) {
			case LANG_C: n_c++; c->source = a; break;
			case LANG_ASM: n_asm++; break;
			case LANG_OTHER: n_other++; break;
			case LANG_OBJECT: c->n_objects++; break;
			}
			continue;
		}
		if (!strncmp(a, "-print-", 7) || !strncmp(a, "--print-", 8) ||
		    !strncmp(a, "--help=", 7)) {
			query = 1;
			continue;
		}
		o = compopt_find(a);
		if (o) {
			if (o->flags & CO_TAKES_ARG) {
				if (i + 1 >= argc) {
					too_hard = 1;
					continue;
				}
				val = argv[++i];
			}
		} else {
			o = compopt_find_prefix(a);
			if (!o)
				continue; /* a plain flag */
			val = a + strlen(o->name);
		}
		if (o->flags & CO_QUERY)
			query = 1;
		if (o->flags & CO_TOO_HARD)
			too_hard = 1;
		if (o->flags & CO_MODE_COMPILE)
			c->mode_c = 1;
		if (o->flags & CO_MODE_ASSEMBLE)
			c->mode_S = 1;
		if (o->flags & CO_MODE_PREPROCESS)
			c->mode_E = 1;
		if (o->flags & CO_MODE_DEPEND)
			c->mode_M = 1;
		if (o->flags & CO_LINK_SHARED)
			shared = 1;
		if (o->flags & CO_LINK_RELOC)
			reloc = 1;
		if (o->flags & CO_WRITE_DEPS)
			md = 1;
		if (o->flags & CO_OUTPUT)
			c->output = val;
		if ((o->flags & CO_LANGUAGE) && val)
			explicit_lang = !strcmp(val, "none") ? -1 : (int)lang_from_x(val);
		if (!strcmp(o->name, "-l"))
			c->n_objects++;
	}
	c->n_sources = n_c + n_asm + n_other + n_stdin;

	if (query)
		return set(c, KIND_PASSTHROUGH, REASON_QUERY);
	if (too_hard)
		return set(c, KIND_PASSTHROUGH, REASON_TOO_HARD);
	if (c->n_sources == 0 && c->n_objects == 0)
		return set(c, KIND_PASSTHROUGH, REASON_NO_INPUT);
	if (c->mode_E || (c->mode_M && !md))
		return set(c, KIND_PASSTHROUGH,
			   c->mode_E ? REASON_PREPROCESS : REASON_DEPENDENCY_ONLY);
	if (probe != REASON_NR)
		return set(c, KIND_PASSTHROUGH, probe);
	if (n_stdin)
		return set(c, KIND_PASSTHROUGH, REASON_STDIN_INPUT);
	if (c->mode_c || c->mode_S) {
		if (c->n_sources > 1)
			return set(c, KIND_PASSTHROUGH, REASON_MULTIPLE_SOURCES);
		if (n_asm)
			return set(c, KIND_PASSTHROUGH, REASON_ASSEMBLER);
		if (n_other || n_c == 0)
			return set(c, KIND_PASSTHROUGH, n_other ? REASON_OTHER_LANGUAGE
							       : REASON_NO_INPUT);
		return set(c, KIND_COMPILE, c->mode_S ? REASON_C_ASSEMBLE : REASON_C_COMPILE);
	}
	if (c->n_sources) {
		if (n_asm && !n_c && !n_other)
			return set(c, KIND_PASSTHROUGH, REASON_ASSEMBLER);
		if (n_other && !n_c)
			return set(c, KIND_PASSTHROUGH, REASON_OTHER_LANGUAGE);
		return set(c, KIND_PASSTHROUGH, REASON_COMPILE_AND_LINK);
	}
	if (reloc)
		return set(c, KIND_LINK, REASON_LINK_RELOCATABLE);
	return set(c, KIND_LINK, shared ? REASON_LINK_SHARED : REASON_LINK_EXECUTABLE);
}
