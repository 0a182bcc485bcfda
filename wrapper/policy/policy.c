/*
 * policy.c - policy parsing, checking and application; see policy.h.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "wrapper/policy/glob.h"
#include "wrapper/policy/policy.h"
#include "wrapper/common/respfile.h"
#include "wrapper/common/safefs.h"
#include "wrapper/common/suggest.h"
#include "wrapper/policy/vocab.h"
#include "wrapper/common/xalloc.h"

/* The keys, for messages and suggestions. */
static const char *const policy_keys[] = {
	"cflags", "ldflags", "lto", "march", "hot", "cold", "plugin", "bolt", NULL
};
#define POLICY_KEYS_TEXT "cflags, ldflags, lto, march, hot, cold, plugin, bolt"

/* PostgreSQL's required flags: configure adds them because the code relies
 * on them.  A policy may never remove them. */
static const char *const required_flags[] = {
	"-fno-strict-aliasing", "-fwrapv", "-fexcess-precision=standard", NULL
};

/* Flags that break PostgreSQL's semantics (float results, overflow checks,
 * aliasing): never added.  -ftrapv is among them because gcc lets the
 * later of -ftrapv and -fwrapv win: added after make's -fwrapv it turns
 * the overflow checks PostgreSQL relies on into aborts; and
 * -fsingle-precision-constant rounds every double constant to float. */
static const char *const unsafe_flags[] = {
	"-ffast-math", "-Ofast", "-funsafe-math-optimizations",
	"-ffinite-math-only", "-fno-wrapv", "-fstrict-aliasing",
	"-fassociative-math", "-freciprocal-math", "-fno-signed-zeros",
	"-fno-trapping-math", "-fexcess-precision=fast", "-fno-math-errno",
	"-fcx-limited-range", "-ftrapv", "-fsingle-precision-constant",
	/* = -fno-wrapv -fno-wrapv-pointer since gcc 8 */
	"-fstrict-overflow",
	/* denormals flushed to zero at start-up (crtfastmath, as -ffast-math
	 * links), and stores the C11 memory model forbids */
	"-mdaz-ftz", "-fallow-store-data-races", NULL
};

/*
 * Flags that change the ABI: how data is laid out, how functions are
 * called, which registers are used.  One file built with them disagrees
 * with the rest of PostgreSQL (a policy with -fpack-struct on aset.c
 * builds, then initdb dies of SIGSEGV), and a whole build with them
 * disagrees with libc, libpq and extensions built later.  So they are
 * refused in every section, [global] too, added or removed (removing one
 * that make's CFLAGS sets changes one file against the rest).  The -fno-
 * and -mno- forms are the same settings.
 */
#define ABI(what) "it changes the ABI (" what "): objects built with it disagree with the rest of PostgreSQL, libc and extensions"
static const struct abi_flag {
	const char *flag;   /* the flag, or the start of it */
	int prefix;         /* 1: every flag starting with it */
	const char *why;    /* the reason given */
} abi_flags[] = {
	{ "-fpack-struct", 1, ABI("struct layout") },
	{ "-fshort-enums", 0, ABI("the size of enums") },
	{ "-fshort-wchar", 0, ABI("the size of wchar_t") },
	{ "-freg-struct-return", 0, ABI("how functions return structs") },
	{ "-fpcc-struct-return", 0, ABI("how functions return structs") },
	{ "-funsigned-char", 0, ABI("whether char is signed") },
	{ "-fsigned-char", 0, ABI("whether char is signed") },
	{ "-malign-double", 0, ABI("the alignment of double") },
	{ "-mabi=", 1, ABI("the calling convention") },
	{ "-ffixed-", 1, ABI("which registers code may use") },
	{ "-fcall-used-", 1, ABI("which registers calls preserve") },
	{ "-fcall-saved-", 1, ABI("which registers calls preserve") },
	{ "-m32", 0, ABI("the data model: 32-bit code") },
	{ "-mx32", 0, ABI("the data model: x32 code") },
	{ "-m16", 0, ABI("the data model: 16-bit code") },
	{ "-mcmodel=kernel", 0, ABI("the code model: kernel addresses") },
	{ "-mlong-double-", 1, ABI("the size of long double") },
	{ "-m96bit-long-double", 0, ABI("the size of long double") },
	{ "-m128bit-long-double", 0, ABI("the size of long double") },
	{ "-mpreferred-stack-boundary=", 1, ABI("the stack alignment calls promise") },
	/* as the -mno- forms: no SSE, x87 or floating-point registers at all */
	{ "-msse", 0, ABI("float and double in SSE registers") },
	{ "-msse2", 0, ABI("double in SSE registers") },
	{ "-m80387", 0, ABI("long double in x87 registers") },
	{ "-msoft-float", 0, ABI("floating point in software") },
	{ "-mgeneral-regs-only", 0, ABI("no floating-point registers") },
};

static const char *abi_change(const char *flag)
{
	char *pos = NULL;
	const char *f = flag, *why = NULL;
	/* -fno-short-enums is the same setting as -fshort-enums */
	if (!strncmp(flag, "-fno-", 5) || !strncmp(flag, "-mno-", 5))
		f = pos = xasprintf("-%c%s", flag[1], flag + 5);
	for (size_t i = 0; i < sizeof(abi_flags) / sizeof(abi_flags[0]) && !why; i++) {
		const struct abi_flag *a = &abi_flags[i];
		if (a->prefix ? !strncmp(f, a->flag, strlen(a->flag)) : !strcmp(f, a->flag))
			why = a->why;
	}
	free(pos);
	return why;
}

/* What no switch allows: PostgreSQL's semantics and ABI. */
static const char *semantic_add(const char *flag)
{
	for (int i = 0; unsafe_flags[i]; i++)
		if (!strcmp(flag, unsafe_flags[i]))
			return "it changes PostgreSQL's arithmetic or aliasing semantics";
	return abi_change(flag);
}

static const char *semantic_remove(const char *flag)
{
	for (int i = 0; required_flags[i]; i++)
		if (!strcmp(flag, required_flags[i]))
			return "PostgreSQL requires it";
	return abi_change(flag);
}

/* The vocabulary's reason (vocab.h), in a buffer that lives until the
 * next call. */
static const char *vocab_refusal(const char *flag, int link)
{
	static struct strbuf why = STRBUF_INIT;
	strbuf_reset(&why);
	return vocab_check(flag, link, &why) == VOCAB_OK ? NULL : why.buf;
}

/* "pie: what it protects, relro: ...": the classes of mask, for messages */
static void hardening_text(unsigned mask, struct strbuf *sb)
{
	int first = 1;
	for (int h = 0; h < VOCAB_HARD_NR; h++)
		if (mask & (1u << h)) {
			strbuf_addf(sb, "%s%s: %s", first ? "" : "; ",
				    vocab_hardening_name((enum vocab_hardening)h),
				    vocab_hardening_what((enum vocab_hardening)h));
			first = 0;
		}
}

/*
 * The hardening that adding or removing flag weakens beyond what the
 * caller allows (allowed: classes), with the reason and how to allow it
 * in a buffer that lives until the next call; NULL when none.
 */
static const char *weaken_refusal(const char *flag, int add, unsigned allowed)
{
	static struct strbuf why = STRBUF_INIT;
	unsigned over = vocab_weakens(flag, add) & ~allowed;
	struct strbuf names = STRBUF_INIT;

	if (!over)
		return NULL;
	strbuf_reset(&why);
	vocab_weaken_text(over, &names);
	strbuf_addstr(&why, "it weakens the build's hardening (");
	hardening_text(over, &why);
	strbuf_addf(&why, "); allow it with PGOPT_WEAKEN=%s in the environment (--pgopt-weaken=%s "
		    "in CC, pgbuild --weaken %s)", names.buf, names.buf, names.buf);
	strbuf_release(&names);
	return why.buf;
}

const char *policy_refusal(const char *flag, int add, int link, unsigned flags)
{
	const char *why = add ? semantic_add(flag) : semantic_remove(flag);
	if (!why && !(flags & POLICY_UNCHECKED_FLAGS))
		why = vocab_refusal(flag, link);
	if (!why)
		why = weaken_refusal(flag, add, POLICY_WEAKEN_MASK(flags));
	return why;
}

const char *policy_forbidden_add(const char *flag)
{
	return policy_refusal(flag, 1, 0, 0);
}

const char *policy_forbidden_remove(const char *flag)
{
	return policy_refusal(flag, 0, 0, 0);
}

unsigned policy_weakens(const struct policy *p)
{
	unsigned mask = 0;
	for (size_t i = 0; i < p->nr_sections; i++)
		for (size_t j = 0; j < p->sections[i].nr_ops; j++)
			mask |= p->sections[i].ops[j].weakens;
	return mask;
}

static int perr(struct strbuf *err, const char *path, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int perr(struct strbuf *err, const char *path, int line, const char *fmt, ...)
{
	va_list ap;
	strbuf_addf(err, "%s:%d: ", path, line);
	va_start(ap, fmt);
	strbuf_vaddf(err, fmt, ap);
	va_end(ap);
	return -1;
}

/* See policy.h: '#' at the start or after white space, outside quotes. */
size_t policy_comment_start(const char *s)
{
	int sq = 0, dq = 0;
	for (const char *p = s; *p; p++) {
		if (*p == '\\' && p[1]) {
			p++;
			continue;
		}
		if (*p == '\'' && !dq)
			sq = !sq;
		else if (*p == '"' && !sq)
			dq = !dq;
		else if (*p == '#' && !sq && !dq &&
			 (p == s || isspace((unsigned char)p[-1])))
			return (size_t)(p - s);
	}
	return strlen(s);
}

/* Cut a trailing comment. */
static void strip_comment(char *s)
{
	s[policy_comment_start(s)] = '\0';
}

static char *trim(char *s)
{
	char *e;
	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static void add_op(struct policy_section *s, int add, int link, const char *flag, int line,
		   const char *unchecked, unsigned weakens)
{
	ALLOC_GROW(s->ops, s->nr_ops + 1, s->alloc_ops);
	s->ops[s->nr_ops].add = add;
	s->ops[s->nr_ops].link = link;
	s->ops[s->nr_ops].flag = xstrdup(flag);
	s->ops[s->nr_ops].line = line;
	s->ops[s->nr_ops].unchecked = unchecked ? xstrdup(unchecked) : NULL;
	s->ops[s->nr_ops].weakens = weakens;
	s->nr_ops++;
}

static char *resolve_relative(const char *policy_path, const char *file)
{
	const char *slash;
	if (file[0] == '/')
		return xstrdup(file);
	slash = strrchr(policy_path, '/');
	if (!slash)
		return xstrdup(file);
	return xasprintf("%.*s/%s", (int)(slash - policy_path), policy_path, file);
}

/* Only the documented words: on, off (strict, like ccache's booleans). */
static int parse_onoff(const char *v)
{
	if (!strcmp(v, "on"))
		return 1;
	if (!strcmp(v, "off"))
		return 0;
	return -1;
}

static int is_key(const char *key)
{
	for (int i = 0; policy_keys[i]; i++)
		if (!strcmp(key, policy_keys[i]))
			return 1;
	return 0;
}

/* An unknown key: the keys there are, and the line it may have meant
 * ("CFLAGS += -O3" -> "cflags += -O3"). */
static int unknown_key(struct policy *p, int lineno, const char *key, int add,
		       const char *val, struct strbuf *err)
{
	const char *hint = suggest_word(key, policy_keys);
	const char *op = add > 0 ? "+=" : add == 0 ? "-=" : "=";

	if (!hint)
		return perr(err, p->path, lineno,
			    "expected a known key (" POLICY_KEYS_TEXT "), got \"%s\"", key);
	/* flags are only ever added or removed */
	if (add < 0 && (!strcmp(hint, "cflags") || !strcmp(hint, "ldflags")))
		op = "+=";
	return perr(err, p->path, lineno,
		    "expected a known key (" POLICY_KEYS_TEXT "), got \"%s\": did you mean \"%s %s%s%s\"?",
		    key, hint, op, *val ? " " : "", val);
}

/* Split the line "key op value" (written over): *key, *add (1: "+=",
 * 0: "-=", -1: "=") and *val (trimmed).  0, or -1 with err set. */
static int split_setting(struct policy *p, char *line, int lineno, char **key, int *add,
			 char **val, struct strbuf *err)
{
	size_t klen = strcspn(line, " \t+-=");
	char *op = line + klen;

	*key = line;
	*add = -1;
	while (isspace((unsigned char)*op))
		*op++ = '\0';
	if (op[0] == '+' && op[1] == '=') {
		*add = 1;
		*val = op + 2;
	} else if (op[0] == '-' && op[1] == '=') {
		*add = 0;
		*val = op + 2;
	} else if (op[0] == '=') {
		*val = op + 1;
	} else {
		return perr(err, p->path, lineno,
			    "expected \"key += value\", \"key -= value\" or \"key = value\"");
	}
	*op = '\0';
	line[klen] = '\0';
	*val = trim(*val);
	return 0;
}

/* One flag of a "key += FLAGS" or "key -= FLAGS" line (link: ldflags):
 * refused, or added to s as an op, with the warnings it earns.  0, or -1
 * with err set. */
static int parse_flag(struct policy *p, struct policy_section *s, const char *key, int add,
		      int link, const char *flag, int lineno, struct strbuf *err)
{
	const char *why = add ? semantic_add(flag) : semantic_remove(flag), *weakening;
	unsigned weakens;

	if (why)
		return perr(err, p->path, lineno, "cannot %s %s: %s", add ? "add" : "remove",
			    flag, why);
	if (flag[0] != '-')
		return perr(err, p->path, lineno, "expected flags starting with '-', got \"%s\"",
			    flag);
	why = vocab_refusal(flag, link);
	if ((why && !p->unchecked) || (weakening = weaken_refusal(flag, add, p->weaken)))
		return perr(err, p->path, lineno, "cannot %s %s: %s", add ? "add" : "remove",
			    flag, why && !p->unchecked ? why : weakening);
	if (why)
		strvec_pushf(&p->warnings,
			     "%s:%d: %s %s %s is outside the policy vocabulary (%s): used because the caller allowed unchecked flags (unchecked-flags: --pgopt-unchecked-flags or PGOPT_UNCHECKED_FLAGS)",
			     p->path, lineno, key, add ? "+=" : "-=", flag, why);
	weakens = vocab_weakens(flag, add);
	if (weakens) {
		struct strbuf names = STRBUF_INIT, what = STRBUF_INIT;
		vocab_weaken_text(weakens, &names);
		hardening_text(weakens, &what);
		strvec_pushf(&p->warnings,
			     "%s:%d: %s %s %s weakens the build's hardening (%s): used because the caller allowed weakening %s (weaken: pgbuild --weaken, --pgopt-weaken or PGOPT_WEAKEN)",
			     p->path, lineno, key, add ? "+=" : "-=", flag, what.buf, names.buf);
		strbuf_release(&names);
		strbuf_release(&what);
	}
	add_op(s, add, link, flag, lineno, why, weakens);
	return 0;
}

/* "cflags += FLAGS", "ldflags -= FLAGS" (add: 1, 0, or -1 for "="). */
static int parse_flags(struct policy *p, struct policy_section *s, const char *key, int add,
		       const char *val, int lineno, struct strbuf *err)
{
	int link = key[0] == 'l', rc = 0;
	struct strvec words = STRVEC_INIT;

	if (add < 0)
		return perr(err, p->path, lineno,
			    "expected \"%s += FLAGS\" or \"%s -= FLAGS\"", key, key);
	if (link && !s->global)
		return perr(err, p->path, lineno,
			    "expected ldflags only in [global] (links have no translation unit)");
	if (respfile_split(val, strlen(val), &words))
		rc = perr(err, p->path, lineno, "expected a closing quote: %s", val);
	else if (!words.nr)
		rc = perr(err, p->path, lineno, "expected at least one flag after %s",
			  add ? "+=" : "-=");
	for (size_t i = 0; rc == 0 && i < words.nr; i++)
		rc = parse_flag(p, s, key, add, link, words.v[i], lineno, err);
	strvec_clear(&words);
	return rc;
}

/* "march = CPU": -march=CPU added, once a section. */
static int parse_march(struct policy *p, struct policy_section *s, const char *val,
		       int lineno, struct strbuf *err)
{
	char *flag;
	const char *why;

	if (!*val || strchr(val, ' '))
		return perr(err, p->path, lineno, "expected one CPU name after march =");
	if (s->march_line)
		return perr(err, p->path, lineno,
			    "expected march once in [%s] (line %d sets it already)", s->glob,
			    s->march_line);
	s->march_line = lineno;
	flag = xasprintf("-march=%s", val);
	why = vocab_refusal(flag, 0);
	if (why) {
		perr(err, p->path, lineno, "cannot add %s: %s", flag, why);
		free(flag);
		return -1;
	}
	add_op(s, 1, 0, flag, lineno, NULL, 0);
	free(flag);
	return 0;
}

/* "lto", "plugin", "bolt", "hot" or "cold" = val: the keys of [global],
 * each setting the one value of the whole policy, once. */
static int parse_global_key(struct policy *p, const char *key, const char *val, int lineno,
			    struct strbuf *err)
{
	int *seen = !strcmp(key, "lto") ? &p->lto_line
		    : !strcmp(key, "plugin") ? &p->plugin_line
		    : !strcmp(key, "bolt") ? &p->bolt_line
		    : !strcmp(key, "hot") ? &p->hot_line : &p->cold_line;

	if (*seen)
		return perr(err, p->path, lineno, "expected %s once (line %d sets it already)",
			    key, *seen);
	if (!strcmp(key, "lto")) {
		if (!strcmp(val, "fat"))
			p->lto = LTO_FAT;
		else if (!strcmp(val, "slim"))
			p->lto = LTO_SLIM;
		else if (parse_onoff(val) >= 0)
			p->lto = parse_onoff(val) ? LTO_ON : LTO_OFF;
		else
			return perr(err, p->path, lineno, "expected lto = on, off, fat or slim, got \"%s\"", val);
	} else if (!strcmp(key, "plugin")) {
		if (parse_onoff(val) < 0)
			return perr(err, p->path, lineno, "expected plugin = on or off, got \"%s\"", val);
		p->plugin = parse_onoff(val);
	} else if (!strcmp(key, "bolt")) {
		if (strcmp(val, "ready") && strcmp(val, "off"))
			return perr(err, p->path, lineno, "expected bolt = ready or off, got \"%s\"", val);
		p->bolt = !strcmp(val, "ready");
	} else {
		char **dst = key[0] == 'h' ? &p->hot : &p->cold;
		if (!*val)
			return perr(err, p->path, lineno, "expected a file name after %s =", key);
		free(*dst);
		*dst = resolve_relative(p->path, val);
	}
	*seen = lineno;
	return 0;
}

/* One "key op value" line inside section s. */
static int parse_setting(struct policy *p, struct policy_section *s, char *line,
			 int lineno, struct strbuf *err)
{
	char *key, *val = NULL;
	int add;

	if (split_setting(p, line, lineno, &key, &add, &val, err) < 0)
		return -1;
	if (!is_key(key))
		return unknown_key(p, lineno, key, add, val, err);
	if (!strcmp(key, "cflags") || !strcmp(key, "ldflags"))
		return parse_flags(p, s, key, add, val, lineno, err);
	if (add >= 0)
		return perr(err, p->path, lineno, "expected \"%s = VALUE\" (no += or -=)", key);
	if (!strcmp(key, "march"))
		return parse_march(p, s, val, lineno, err);
	if (!s->global)
		return perr(err, p->path, lineno, "expected \"%s\" only in [global]", key);
	return parse_global_key(p, key, val, lineno, err);
}

/*
 * Warn about a section that can never match a C translation unit: TU
 * names are C sources relative to the source root
 * (src/backend/utils/mmgr/aset.c).  glob is the header as written.
 */
static void check_section(struct policy *p, const struct policy_section *s, const char *glob)
{
	const char *last;
	size_t n;
	int can = 0;

	if (glob[0] == '/') {
		const char *src = strstr(glob + 1, "/src/");
		/* read as the rest; a tree's units are src/..., contrib/... */
		strvec_pushf(&p->warnings,
			     "%s:%d: section [%s] is an absolute path, but translation units are named relative to the source root (e.g. src/backend/utils/mmgr/aset.c): it is read as [%s], which matches a unit only at that path under the root%s%s%s",
			     p->path, s->line, glob, glob + 1, src ? "; did you mean [" : "",
			     src ? src + 1 : "", src ? "]?" : "");
	}
	for (size_t i = 0; i < s->patterns.nr; i++)
		can |= glob_can_match_suffix(s->patterns.v[i], ".c");
	if (can)
		return;
	/* a last component (trailing '/' aside) without wildcard or dot: a
	 * directory, surely */
	n = strlen(glob);
	while (n && glob[n - 1] == '/')
		n--;
	last = glob + n;
	while (last > glob && last[-1] != '/')
		last--;
	if (n && strcspn(last, "*?[{.") >= (size_t)(glob + n - last)) {
		const char *g = glob;
		strvec_pushf(&p->warnings,
			     "%s:%d: section [%s] can never match a C translation unit: it names a directory, not files; for the C files in it write [%.*s/*.c], with its subdirectories [%.*s/**]",
			     p->path, s->line, glob, (int)n, g, (int)n, g);
		return;
	}
	strvec_pushf(&p->warnings,
		     "%s:%d: section [%s] can never match a C translation unit (their names end in .c, e.g. src/backend/utils/mmgr/aset.c)",
		     p->path, s->line, glob);
}

/* Checks that need the whole file: bolt = ready against a section that
 * turns the hot/cold partitioning back on. */
static int check_policy(struct policy *p, struct strbuf *err)
{
	if (!p->bolt)
		return 0;
	for (size_t i = 0; i < p->nr_sections; i++)
		for (size_t j = 0; j < p->sections[i].nr_ops; j++) {
			const struct policy_op *op = &p->sections[i].ops[j];
			if (op->add && !op->link && !strcmp(op->flag, "-freorder-blocks-and-partition"))
				return perr(err, p->path, op->line,
					    "cannot add -freorder-blocks-and-partition with bolt = ready (line %d): BOLT cannot rewrite the .cold parts it splits functions into",
					    p->bolt_line);
		}
	return 0;
}

int policy_parse(struct policy *p, const char *path, const char *text, size_t len,
		 struct strbuf *err)
{
	return policy_parse_flags(p, path, text, len, 0, err);
}

int policy_parse_flags(struct policy *p, const char *path, const char *text, size_t len,
		       unsigned flags, struct strbuf *err)
{
	struct policy_section *cur = NULL;
	int lineno = 0;
	size_t pos = 0;

	memset(p, 0, sizeof(*p));
	strvec_init(&p->warnings);
	p->path = xstrdup(path);
	p->plugin = 1;
	p->unchecked = (flags & POLICY_UNCHECKED_FLAGS) != 0;
	p->weaken = POLICY_WEAKEN_MASK(flags);
	/* a UTF-8 byte-order mark, as some editors write */
	if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) {
		text += 3;
		len -= 3;
	}
	{
		const char *nul = memchr(text, '\0', len);
		if (nul) {
			int line = 1;
			for (const char *c = text; c < nul; c++)
				line += *c == '\n';
			return perr(err, path, line, "expected a text file (found a NUL byte)");
		}
	}
	while (pos < len) {
		size_t eol = pos;
		char *line, *s;
		while (eol < len && text[eol] != '\n')
			eol++;
		lineno++;
		line = xstrndup(text + pos, eol - pos);
		pos = eol + 1;
		strip_comment(line);
		s = trim(line);
		if (!*s) {
			free(line);
			continue;
		}
		if (*s == '[') {
			char *end = s + strlen(s) - 1;
			const char *why = NULL;
			if (*end != ']' || end == s + 1) {
				free(line);
				return perr(err, path, lineno, "expected \"[GLOB]\" or \"[global]\"");
			}
			*end = '\0';
			s = trim(s + 1);
			ALLOC_GROW(p->sections, p->nr_sections + 1, p->alloc_sections);
			cur = &p->sections[p->nr_sections++];
			memset(cur, 0, sizeof(*cur));
			strvec_init(&cur->patterns);
			cur->line = lineno;
			cur->glob = xstrdup(s);
			cur->global = !strcmp(s, "global");
			if (!cur->global) {
				const char *g = s;
				while (g[0] == '.' && g[1] == '/')
					g += 2;
				while (*g == '/')
					g++;
				if (glob_compile(g, &cur->patterns, &why) < 0) {
					perr(err, path, lineno, "bad glob \"%s\": expected %s", s, why);
					free(line);
					return -1;
				}
				check_section(p, cur, s);
			}
			free(line);
			continue;
		}
		if (!cur) {
			free(line);
			return perr(err, path, lineno,
				    "expected a section header such as [global] before settings");
		}
		if (parse_setting(p, cur, s, lineno, err) < 0) {
			free(line);
			return -1;
		}
		free(line);
	}
	return check_policy(p, err);
}

/* The reason in a message of sfs_read ("cannot read PATH: REASON"). */
static const char *read_reason(const struct strbuf *sb, const char *path)
{
	size_t n = strlen(path);
	if (!strncmp(sb->buf, "cannot read ", 12) && !strncmp(sb->buf + 12, path, n) &&
	    !strncmp(sb->buf + 12 + n, ": ", 2))
		return sb->buf + 12 + n + 2;
	return sb->buf;
}

int policy_read_list(const char *path, struct strbuf *out, struct strbuf *err)
{
	struct strbuf e = STRBUF_INIT;
	int r = 0;
	if (sfs_read(AT_FDCWD, path, SFS_IN_TEXT, 0, out, &e) < 0) {
		strbuf_addstr(err, read_reason(&e, path));
		r = -1;
	}
	strbuf_release(&e);
	return r;
}

int policy_load(struct policy *p, const char *path, unsigned flags, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT, e = STRBUF_INIT;
	char abspath[PATH_MAX];
	int r;
	if (sfs_read(AT_FDCWD, path, SFS_IN_TEXT, 0, &text, &e) < 0) {
		memset(p, 0, sizeof(*p));
		strbuf_addf(err, "%s: cannot read policy: %s", path, read_reason(&e, path));
		strbuf_release(&text);
		strbuf_release(&e);
		return -1;
	}
	r = policy_parse_flags(p, realpath(path, abspath) ? abspath : path, text.buf, text.len,
			       flags, err);
	if (r == 0) {
		struct sha256 c;
		sha256_init(&c);
		sha256_update(&c, text.buf, text.len);
		sha256_final_hex(&c, p->sha256);
	}
	/* the lists are read by the plugin in every compile: one that cannot
	 * be read fails here, naming the line, not later in cc1 */
	for (int i = 0; i < 2 && r == 0; i++) {
		const char *list = i ? p->cold : p->hot;
		struct strbuf t = STRBUF_INIT, why = STRBUF_INIT;
		if (list && policy_read_list(list, &t, &why) < 0)
			r = perr(err, p->path, i ? p->cold_line : p->hot_line,
				 "cannot read the %s list %s: %s", i ? "cold" : "hot", list, why.buf);
		strbuf_release(&t);
		strbuf_release(&why);
	}
	strbuf_release(&text);
	strbuf_release(&e);
	return r;
}

void policy_release(struct policy *p)
{
	for (size_t i = 0; i < p->nr_sections; i++) {
		struct policy_section *s = &p->sections[i];
		for (size_t j = 0; j < s->nr_ops; j++) {
			free(s->ops[j].flag);
			free(s->ops[j].unchecked);
		}
		free(s->ops);
		free(s->glob);
		strvec_clear(&s->patterns);
	}
	free(p->sections);
	free(p->path);
	free(p->hot);
	free(p->cold);
	strvec_clear(&p->warnings);
	memset(p, 0, sizeof(*p));
}

int policy_section_matches(const struct policy_section *s, const char *tu)
{
	if (s->global)
		return 1;
	if (!tu)
		return 0;
	for (size_t i = 0; i < s->patterns.nr; i++)
		if (glob_match(s->patterns.v[i], tu))
			return 1;
	return 0;
}

size_t policy_unmatched(const struct policy *p, const char *const *tus, size_t n,
			struct strvec *out)
{
	size_t found = 0;

	for (size_t i = 0; i < p->nr_sections; i++) {
		const struct policy_section *s = &p->sections[i];
		struct strvec missed = STRVEC_INIT;
		if (s->global)
			continue;
		for (size_t k = 0; k < s->patterns.nr; k++) {
			size_t t = 0;
			while (t < n && !glob_match(s->patterns.v[k], tus[t]))
				t++;
			if (t == n)
				strvec_push(&missed, s->patterns.v[k]);
		}
		if (missed.nr && missed.nr == s->patterns.nr)
			strvec_pushf(out, "%s:%d: section [%s] matched none of the %zu translation units compiled",
				     p->path, s->line, s->glob, n);
		else
			for (size_t k = 0; k < missed.nr; k++)
				strvec_pushf(out, "%s:%d: section [%s]: its pattern %s matched none of the %zu translation units compiled",
					     p->path, s->line, s->glob, missed.v[k], n);
		found += missed.nr ? (missed.nr == s->patterns.nr ? 1 : missed.nr) : 0;
		strvec_clear(&missed);
	}
	return found;
}

/* Take every flag out of args; the number taken out. */
static size_t remove_all(struct strvec *args, const char *flag, struct policy_result *res)
{
	size_t taken = 0;
	for (size_t i = 0; i < args->nr;) {
		if (!strcmp(args->v[i], flag)) {
			strvec_push(&res->removed, flag);
			strvec_remove(args, i);
			res->changed = 1;
			taken++;
		} else
			i++;
	}
	/* also drop it from what this policy added earlier */
	for (size_t i = 0; i < res->added.nr;) {
		if (!strcmp(res->added.v[i], flag))
			strvec_remove(&res->added, i);
		else
			i++;
	}
	return taken;
}

/* -fpie, -fPIE, -fno-pie, -fno-PIE: what kind of executable code is for */
static int is_pie_option(const char *flag)
{
	return !strcmp(flag, "-fpie") || !strcmp(flag, "-fPIE") || !strcmp(flag, "-fno-pie") ||
	       !strcmp(flag, "-fno-PIE");
}

/*
 * Does the command line ask for debug information?  The last -g option
 * decides, as for gcc: -g, -g1..3, -ggdb, -gdwarf... yes; -g0 no.  Options
 * that only tune it (-gno-..., -gz, -gsplit-dwarf, -gcolumn-info, ...) do
 * not count.
 */
static int wants_debug_info(const struct strvec *args)
{
	int on = 0;
	for (size_t i = 0; i < args->nr; i++) {
		const char *a = args->v[i];
		if (strncmp(a, "-g", 2))
			continue;
		if (!strcmp(a, "-g0"))
			on = 0;
		else if (!strcmp(a, "-g") || ((a[2] >= '1' && a[2] <= '3') && !a[3]) ||
			 !strncmp(a, "-ggdb", 5) || !strncmp(a, "-gdwarf", 7))
			on = 1;
	}
	return on;
}

/* Does the command line optimize?  The last -O option decides, as for
 * gcc: -O0 or none no, any other level yes. */
static int optimizes(const struct strvec *args)
{
	int on = 0;
	for (size_t i = 0; i < args->nr; i++)
		if (!strncmp(args->v[i], "-O", 2))
			on = strcmp(args->v[i], "-O0") != 0;
	return on;
}

void policy_apply(const struct policy *p, const char *tu, struct strvec *args,
		  struct policy_result *res)
{
	/* a compile that optimized before the policy must still: glibc's
	 * _FORTIFY_SOURCE checks need optimization, and removing the level
	 * (cflags -= -O2 with no level added after it) turns them off as
	 * -O0 does; the removal that did it, for the refusal */
	int optimized = tu != NULL && optimizes(args);
	const struct policy_op *level_removed = NULL;
	int link = tu == NULL;
	/* -pie and -no-pie say what kind of executable a link makes: a link
	 * of a shared library (-shared) does not take them (gcc would link it
	 * as an executable) */
	int shared = link && strvec_find(args, "-shared") >= 0;
	/* ... and a compile for a shared library (-fpic, -fPIC) keeps its PIC:
	 * a later -fno-pie, -fpie or -fPIE would replace it (gcc's last
	 * PIC/PIE option wins) and the library would not link; so does the
	 * library's link, where LTO generates the code again (with lto on,
	 * the global cflags reach links) */
	int pic = strvec_find(args, "-fPIC") >= 0 || strvec_find(args, "-fpic") >= 0 || shared;
	strvec_init(&res->rules);
	strvec_init(&res->added);
	strvec_init(&res->removed);
	strvec_init(&res->unchecked);
	res->changed = 0;
	res->weakened = 0;
	res->refusal = NULL;

	for (size_t i = 0; i < p->nr_sections; i++) {
		const struct policy_section *s = &p->sections[i];
		if (!policy_section_matches(s, tu))
			continue;
		strvec_pushf(&res->rules, "%s:%d", p->path, s->line);
		for (size_t j = 0; j < s->nr_ops; j++) {
			const struct policy_op *op = &s->ops[j];
			/* compiles take cflags; links take ldflags, and with LTO
			 * the global cflags too (the optimizer runs again there) */
			if (op->link && !link)
				continue;
			if (!op->link && link && op->add && p->lto == LTO_OFF)
				continue;
			if (shared && op->add && (!strcmp(op->flag, "-pie") || !strcmp(op->flag, "-no-pie")))
				continue;
			if (pic && op->add && is_pie_option(op->flag))
				continue;
			if (op->unchecked)
				strvec_push(&res->unchecked, op->flag);
			if (op->add) {
				strvec_push(args, op->flag);
				strvec_push(&res->added, op->flag);
				res->changed = 1;
				res->weakened |= op->weakens;
			} else if (remove_all(args, op->flag, res)) {
				res->weakened |= op->weakens;
				if (!strncmp(op->flag, "-O", 2))
					level_removed = op;
			}
		}
	}
	if (optimized && level_removed && !optimizes(args)) {
		unsigned h = 1u << VOCAB_HARD_FORTIFY;
		res->weakened |= h;
		if (!(p->weaken & h))
			res->refusal = xasprintf(
				"%s:%d: cannot remove %s from %s: the compile is left without optimization, "
				"which turns _FORTIFY_SOURCE off (it weakens the build's hardening: fortify: %s); "
				"add the level it should have after it (cflags += -O3), or allow it with "
				"PGOPT_WEAKEN=fortify in the environment (--pgopt-weaken=fortify in CC, "
				"pgbuild --weaken fortify)",
				p->path, level_removed->line, level_removed->flag, tu,
				vocab_hardening_what(VOCAB_HARD_FORTIFY));
	}
	/* hot/cold lists act through the plugin, so a compile they apply to
	 * is changed even when no flag is: the plugin must be loaded */
	res->lists = !link && p->plugin && (p->hot || p->cold);
	if (res->lists)
		res->changed = 1;
	if (p->lto != LTO_OFF) {
		strvec_push(args, "-flto=auto");
		strvec_push(&res->added, "-flto=auto");
		/* fat objects unless asked for slim ones: an archive of slim
		 * objects is empty once stripped (pgoptcc drops the flag again
		 * for lto = on with a compiler that is not GCC) */
		if (p->lto != LTO_SLIM && !link) {
			strvec_push(args, "-ffat-lto-objects");
			strvec_push(&res->added, "-ffat-lto-objects");
		}
		res->changed = 1;
	}
	/* BOLT: no hot/cold splitting of functions (BOLT 15 cannot rewrite
	 * the .cold fragments gcc makes), relocations kept in the link; with
	 * LTO the code is generated at the link, so it gets the flag too */
	if (p->bolt) {
		if (!link || p->lto != LTO_OFF) {
			strvec_push(args, POLICY_BOLT_CFLAG);
			strvec_push(&res->added, POLICY_BOLT_CFLAG);
		}
		if (link) {
			strvec_push(args, POLICY_BOLT_LDFLAG);
			strvec_push(&res->added, POLICY_BOLT_LDFLAG);
		}
		if (wants_debug_info(args)) {
			strvec_push(args, POLICY_BOLT_DWARF);
			strvec_push(&res->added, POLICY_BOLT_DWARF);
		}
		res->changed = 1;
	}
}

void policy_result_release(struct policy_result *res)
{
	strvec_clear(&res->rules);
	strvec_clear(&res->added);
	strvec_clear(&res->removed);
	strvec_clear(&res->unchecked);
	free(res->refusal);
	res->refusal = NULL;
}

int policy_profile_parse(struct policy_profile *pp, const char *value, struct strbuf *err)
{
	struct strvec words = STRVEC_INIT;
	const char *w;
	int r = 0;

	memset(pp, 0, sizeof(*pp));
	strvec_init(&pp->patterns);
	strvec_split(&words, value);
	w = words.nr ? words.v[0] : "";
	if (strcmp(w, "generate") && strcmp(w, "use") && strncmp(w, "use=", 4)) {
		strbuf_addf(err, "expected generate, use or use=FILE, then the units' globs, got \"%s\"",
			    value);
		strvec_clear(&words);
		return -1;
	}
	if (!strncmp(w, "use=", 4) && w[4] != '/') {
		strbuf_addf(err, "expected use=FILE with FILE an absolute path (the merged "
			    ".profdata), got \"%s\"", w);
		strvec_clear(&words);
		return -1;
	}
	pp->mode = !strcmp(w, "generate") ? PROFILE_GENERATE : PROFILE_USE;
	if (!strncmp(w, "use=", 4))
		pp->data = xstrdup(w + 4);
	for (size_t i = 1; i < words.nr && !r; i++) {
		const char *why = NULL, *g = words.v[i];
		while (g[0] == '.' && g[1] == '/')
			g += 2;
		if (glob_compile(g, &pp->patterns, &why) < 0) {
			strbuf_addf(err, "bad glob \"%s\": expected %s", words.v[i], why);
			r = -1;
		}
	}
	strvec_clear(&words);
	return r;
}

void policy_profile_release(struct policy_profile *pp)
{
	strvec_clear(&pp->patterns);
	free(pp->data);
	memset(pp, 0, sizeof(*pp));
}

const char *policy_profile_check(const struct policy_profile *pp, int llvm)
{
	if (pp->mode != PROFILE_USE)
		return NULL;
	if (llvm && !pp->data)
		return "clang reads one merged profile: expected use=FILE (the .profdata)";
	if (!llvm && pp->data)
		return "use=FILE is clang's merged profile; GCC reads the .gcda beside each "
		       "object: expected use";
	return NULL;
}

void policy_profile_apply(const struct policy_profile *pp, const char *tu, int llvm,
			  struct strvec *args, struct policy_result *res)
{
	struct strvec flags = STRVEC_INIT;
	int match = !pp->patterns.nr;

	if (pp->mode == PROFILE_NONE)
		return;
	for (size_t i = 0; tu && i < pp->patterns.nr && !match; i++)
		match = glob_match(pp->patterns.v[i], tu);
	if (llvm && pp->mode == PROFILE_GENERATE && (!tu || match))
		strvec_split(&flags, POLICY_PROFILE_GENERATE_LLVM);
	else if (llvm && tu && match && pp->data)
		strvec_pushf(&flags, "-fprofile-use=%s", pp->data);
	else if (llvm)
		;
	else if (!tu)
		strvec_split(&flags, pp->mode == PROFILE_GENERATE ? POLICY_PROFILE_LINK : "");
	else if (match)
		strvec_split(&flags, pp->mode == PROFILE_GENERATE ? POLICY_PROFILE_GENERATE
								   : POLICY_PROFILE_USE);
	for (size_t i = 0; i < flags.nr; i++) {
		strvec_push(args, flags.v[i]);
		strvec_push(&res->added, flags.v[i]);
		res->changed = 1;
	}
	strvec_clear(&flags);
}

/* See policy.h. */
char *policy_bundle_gcda(const char *tu, const char *object)
{
	const char *slash, *base, *dot;
	struct strbuf sb = STRBUF_INIT;

	if (!tu || !object || !*tu || tu[0] == '/' || !strcmp(tu, "..") || !strncmp(tu, "../", 3) ||
	    strstr(tu, "/../") || (strlen(tu) > 3 && !strcmp(tu + strlen(tu) - 3, "/..")))
		return NULL;
	base = strrchr(object, '/');
	base = base ? base + 1 : object;
	dot = strrchr(base, '.');
	if (!*base || dot == base)
		return NULL;
	slash = strrchr(tu, '/');
	strbuf_addstr(&sb, "gcda/");
	if (slash)
		strbuf_addf(&sb, "%.*s/", (int)(slash - tu), tu);
	strbuf_addf(&sb, "%.*s.gcda", (int)(dot ? (size_t)(dot - base) : strlen(base)), base);
	return strbuf_detach(&sb, NULL);
}
