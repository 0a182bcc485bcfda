/*
 * script.c - the pgbench-compatible script subset of pgbuild bench:
 * parsing, integer expressions, variable substitution and the per-client
 * random number generator.  See bench.h for the accepted syntax.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/bench/bench.h"
#include "wrapper/common/error.h"
#include "wrapper/common/xalloc.h"

/* ---------------- PRNG (xoshiro256**) ---------------- */

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void bench_prng_seed(struct bench_prng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t bench_prng_next(struct bench_prng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

int64_t bench_random(struct bench_prng *r, int64_t lo, int64_t hi)
{
	uint64_t range = (uint64_t)hi - (uint64_t)lo + 1;
	if (range == 0)         /* the whole int64 range */
		return (int64_t)bench_prng_next(r);
	return lo + (int64_t)(((unsigned __int128)bench_prng_next(r) * range) >> 64);
}

double bench_random_double(struct bench_prng *r)
{
	return (double)(bench_prng_next(r) >> 11) * 0x1.0p-53;
}

/* The three below are pgbench's (PostgreSQL 15, src/bin/pgbench/pgbench.c),
 * so a script shapes its keys as it does under pgbench. */
int64_t bench_random_exponential(struct bench_prng *r, int64_t lo, int64_t hi, double param)
{
	double cut = exp(-param), uniform = 1.0 - bench_random_double(r);
	double rand = -log(cut + (1.0 - cut) * uniform) / param;
	return lo + (int64_t)((double)(hi - lo + 1) * rand);
}

int64_t bench_random_gaussian(struct bench_prng *r, int64_t lo, int64_t hi, double param)
{
	double stdev;
	do {    /* Box-Muller, redrawn outside [-param, param) */
		double rand1 = 1.0 - bench_random_double(r), rand2 = bench_random_double(r);
		stdev = sqrt(-2.0 * log(rand1)) * sin(2.0 * M_PI * rand2);
	} while (stdev < -param || stdev >= param);
	return lo + (int64_t)((double)(hi - lo + 1) * ((stdev + param) / (param * 2.0)));
}

int64_t bench_random_zipfian(struct bench_prng *r, int64_t lo, int64_t hi, double s)
{
	double n = (double)(hi - lo + 1), b = pow(2.0, s - 1.0), x;
	if (n <= 1)
		return lo;
	for (;;) {      /* Devroye's rejection method, as pgbench */
		double u = bench_random_double(r), v = bench_random_double(r), t;
		x = floor(pow(u, -1.0 / (s - 1.0)));
		t = pow(1.0 + 1.0 / x, s - 1.0);
		if (v * x * (t - 1.0) / (b - 1.0) <= t / b && x <= n)
			break;
	}
	return lo + (int64_t)x - 1;
}

/* ---------------- variables ---------------- */

int bench_var_index(struct bench_vars *vars, const char *name, int create)
{
	for (int i = 0; i < vars->nr; i++)
		if (!strcmp(vars->names[i], name))
			return i;
	if (!create)
		return -1;
	ALLOC_GROW(vars->names, vars->nr + 1, vars->alloc);
	vars->names[vars->nr] = xstrdup(name);
	return vars->nr++;
}

void bench_vars_free(struct bench_vars *vars)
{
	for (int i = 0; i < vars->nr; i++)
		free(vars->names[i]);
	free(vars->names);
	memset(vars, 0, sizeof(*vars));
}

static int is_ident(int c)
{
	return isalnum(c) || c == '_';
}

/* ---------------- expressions ---------------- */

struct parser {
	const char *p;          /* next character */
	const char *file;
	int line;
	struct bench_vars *vars;
	char err[200];
};

static struct bench_expr *new_expr(enum bench_expr_kind k)
{
	struct bench_expr *e = xcalloc(1, sizeof(*e));
	e->kind = k;
	return e;
}

static void free_expr(struct bench_expr *e)
{
	if (!e)
		return;
	free_expr(e->left);
	free_expr(e->right);
	free(e);
}

static void skip_ws(struct parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t')
		ps->p++;
}

static struct bench_expr *parse_sum(struct parser *ps);

/* The functions of the script language: pgbench's names, arity and
 * ranges of the shape parameter (a numeric constant here). */
static const struct {
	const char *name;
	enum bench_expr_kind kind;
	int nargs;              /* integer arguments */
	int shaped;             /* a third argument: the shape parameter */
	double min, max;        /* its range */
	const char *range;      /* the range in words, for the message */
} functions[] = {
	{ "abs", BEXPR_ABS, 1, 0, 0, 0, NULL },
	{ "random", BEXPR_RANDOM, 2, 0, 0, 0, NULL },
	{ "random_exponential", BEXPR_RANDOM_EXP, 2, 1, 0, INFINITY, "greater than 0" },
	{ "random_gaussian", BEXPR_RANDOM_GAUSS, 2, 1, 2.0, INFINITY, "at least 2.0" },
	{ "random_zipfian", BEXPR_RANDOM_ZIPF, 2, 1, 1.001, 1000.0, "from 1.001 to 1000" },
};
#define FUNCTIONS_KNOWN "abs, random, random_exponential, random_gaussian, random_zipfian"

/* name( ... ): its arguments, after the '(' */
static struct bench_expr *parse_call(struct parser *ps, const char *name)
{
	struct bench_expr *e;
	size_t f;

	for (f = 0; f < sizeof(functions) / sizeof(functions[0]); f++)
		if (!strcmp(functions[f].name, name))
			break;
	if (f == sizeof(functions) / sizeof(functions[0])) {
		snprintf(ps->err, sizeof(ps->err), "unknown function \"%s\" (known: "
			 FUNCTIONS_KNOWN ")", name);
		return NULL;
	}
	ps->p++;
	e = new_expr(functions[f].kind);
	e->left = parse_sum(ps);
	if (!e->left)
		goto bad;
	skip_ws(ps);
	if (functions[f].nargs == 2) {
		if (*ps->p != ',') {
			snprintf(ps->err, sizeof(ps->err), "%s() takes %d arguments", name,
				 2 + functions[f].shaped);
			goto bad;
		}
		ps->p++;
		e->right = parse_sum(ps);
		if (!e->right)
			goto bad;
		skip_ws(ps);
	}
	if (functions[f].shaped) {
		char *end;
		if (*ps->p != ',') {
			snprintf(ps->err, sizeof(ps->err), "%s() takes 3 arguments", name);
			goto bad;
		}
		ps->p++;
		skip_ws(ps);
		errno = 0;
		e->param = strtod(ps->p, &end);
		if (end == ps->p || errno || !isfinite(e->param)) {
			snprintf(ps->err, sizeof(ps->err), "%s(): its third argument must be a "
				 "number (a constant such as 2.5)", name);
			goto bad;
		}
		ps->p = end;
		if (!(e->param > functions[f].min || (e->param == functions[f].min &&
						       functions[f].kind != BEXPR_RANDOM_EXP)) ||
		    e->param > functions[f].max) {
			snprintf(ps->err, sizeof(ps->err), "%s(): parameter %g out of range: "
				 "expected %s", name, e->param, functions[f].range);
			goto bad;
		}
		skip_ws(ps);
	}
	if (*ps->p != ')') {
		snprintf(ps->err, sizeof(ps->err), "expected \")\" after %s arguments", name);
		goto bad;
	}
	ps->p++;
	return e;
bad:
	free_expr(e);
	return NULL;
}

static struct bench_expr *parse_primary(struct parser *ps)
{
	struct bench_expr *e;
	skip_ws(ps);
	if (*ps->p == '(') {
		ps->p++;
		e = parse_sum(ps);
		if (!e)
			return NULL;
		skip_ws(ps);
		if (*ps->p != ')') {
			snprintf(ps->err, sizeof(ps->err), "expected \")\"");
			free_expr(e);
			return NULL;
		}
		ps->p++;
		return e;
	}
	if (*ps->p == '-') {
		ps->p++;
		e = new_expr(BEXPR_NEG);
		e->left = parse_primary(ps);
		if (!e->left) {
			free(e);
			return NULL;
		}
		return e;
	}
	if (isdigit((unsigned char)*ps->p)) {
		char *end;
		errno = 0;
		e = new_expr(BEXPR_CONST);
		e->value = strtoll(ps->p, &end, 10);
		if (errno) {
			snprintf(ps->err, sizeof(ps->err), "integer out of range");
			free(e);
			return NULL;
		}
		ps->p = end;
		return e;
	}
	if (*ps->p == ':' || isalpha((unsigned char)*ps->p) || *ps->p == '_') {
		const char *s;
		char name[64];
		int colon = *ps->p == ':';
		size_t n;
		if (colon)
			ps->p++;
		s = ps->p;
		while (is_ident((unsigned char)*ps->p))
			ps->p++;
		n = (size_t)(ps->p - s);
		if (n == 0 || n >= sizeof(name)) {
			snprintf(ps->err, sizeof(ps->err), "bad variable name");
			return NULL;
		}
		memcpy(name, s, n);
		name[n] = '\0';
		skip_ws(ps);
		if (!colon && *ps->p == '(')
			return parse_call(ps, name);
		e = new_expr(BEXPR_VAR);
		e->var = bench_var_index(ps->vars, name, 0);
		if (e->var < 0) {
			snprintf(ps->err, sizeof(ps->err), "undefined variable \"%s\"", name);
			free(e);
			return NULL;
		}
		return e;
	}
	if (!*ps->p)
		snprintf(ps->err, sizeof(ps->err), "unexpected end of expression");
	else
		snprintf(ps->err, sizeof(ps->err), "syntax error at \"%.20s\"", ps->p);
	return NULL;
}

static struct bench_expr *parse_term(struct parser *ps)
{
	struct bench_expr *l = parse_primary(ps);
	while (l) {
		struct bench_expr *e;
		skip_ws(ps);
		if (*ps->p != '*' && *ps->p != '/' && *ps->p != '%')
			break;
		e = new_expr(BEXPR_BINOP);
		e->op = *ps->p++;
		e->left = l;
		e->right = parse_primary(ps);
		if (!e->right) {
			free_expr(e);
			return NULL;
		}
		l = e;
	}
	return l;
}

static struct bench_expr *parse_sum(struct parser *ps)
{
	struct bench_expr *l = parse_term(ps);
	while (l) {
		struct bench_expr *e;
		skip_ws(ps);
		if (*ps->p != '+' && *ps->p != '-')
			break;
		e = new_expr(BEXPR_BINOP);
		e->op = *ps->p++;
		e->left = l;
		e->right = parse_term(ps);
		if (!e->right) {
			free_expr(e);
			return NULL;
		}
		l = e;
	}
	return l;
}

int bench_expr_eval(const struct bench_expr *e, struct bench_value *vars,
		    struct bench_prng *r, int64_t *out, const char **msg)
{
	int64_t a, b;
	switch (e->kind) {
	case BEXPR_CONST:
		*out = e->value;
		return 0;
	case BEXPR_VAR:
		if (vars[e->var].isnull) {
			*msg = "variable is NULL";
			return -1;
		}
		*out = vars[e->var].i;
		return 0;
	case BEXPR_NEG:
		if (bench_expr_eval(e->left, vars, r, &a, msg) < 0)
			return -1;
		*out = -a;
		return 0;
	case BEXPR_ABS:
		if (bench_expr_eval(e->left, vars, r, &a, msg) < 0)
			return -1;
		*out = a < 0 ? -a : a;
		return 0;
	case BEXPR_RANDOM:
		if (bench_expr_eval(e->left, vars, r, &a, msg) < 0 ||
		    bench_expr_eval(e->right, vars, r, &b, msg) < 0)
			return -1;
		if (a > b) {
			*msg = "random(): lower bound above upper bound";
			return -1;
		}
		*out = bench_random(r, a, b);
		return 0;
	case BEXPR_RANDOM_EXP:
	case BEXPR_RANDOM_GAUSS:
	case BEXPR_RANDOM_ZIPF:
		if (bench_expr_eval(e->left, vars, r, &a, msg) < 0 ||
		    bench_expr_eval(e->right, vars, r, &b, msg) < 0)
			return -1;
		if (a > b) {
			*msg = "random function: lower bound above upper bound";
			return -1;
		}
		*out = e->kind == BEXPR_RANDOM_EXP ? bench_random_exponential(r, a, b, e->param) :
		       e->kind == BEXPR_RANDOM_GAUSS ? bench_random_gaussian(r, a, b, e->param) :
		       bench_random_zipfian(r, a, b, e->param);
		return 0;
	case BEXPR_BINOP:
		if (bench_expr_eval(e->left, vars, r, &a, msg) < 0 ||
		    bench_expr_eval(e->right, vars, r, &b, msg) < 0)
			return -1;
		switch (e->op) {
		case '+': *out = (int64_t)((uint64_t)a + (uint64_t)b); return 0;
		case '-': *out = (int64_t)((uint64_t)a - (uint64_t)b); return 0;
		case '*': *out = (int64_t)((uint64_t)a * (uint64_t)b); return 0;
		case '/':
		case '%':
			if (b == 0) {
				*msg = "division by zero";
				return -1;
			}
			if (b == -1) {
				*out = e->op == '/' ? (int64_t)(0 - (uint64_t)a) : 0;
				return 0;
			}
			*out = e->op == '/' ? a / b : a % b;
			return 0;
		}
	}
	*msg = "bad expression";
	return -1;
}

/* ---------------- commands ---------------- */

/* Turn SQL text with :vars into $n text + pieces for the simple protocol. */
static int sql_command(struct parser *ps, struct bench_command *cmd, const char *text,
		       int script_no, int cmd_no)
{
	struct strbuf sql = STRBUF_INIT, piece = STRBUF_INIT;
	int npieces = 0, alloc_pieces = 0, alloc_params = 0;
	const char *p = text;
	char quote = 0;

	cmd->kind = BCMD_SQL;
	cmd->pieces = NULL;
	cmd->param_var = NULL;
	while (*p) {
		if (quote) {
			if (*p == quote)
				quote = 0;
		} else if (*p == '\'' || *p == '"') {
			quote = *p;
		} else if (p[0] == ':' && p[1] == ':') {
			strbuf_add(&sql, p, 2);
			strbuf_add(&piece, p, 2);
			p += 2;
			continue;
		} else if (p[0] == ':' && (isalpha((unsigned char)p[1]) || p[1] == '_')) {
			const char *s = ++p;
			char *name;
			int v;
			while (is_ident((unsigned char)*p))
				p++;
			name = xstrndup(s, (size_t)(p - s));
			v = bench_var_index(ps->vars, name, 1);
			free(name);
			if (cmd->nparams >= BENCH_MAX_PARAMS) {
				snprintf(ps->err, sizeof(ps->err),
					 "more than %d variables in one command", BENCH_MAX_PARAMS);
				strbuf_release(&sql);
				strbuf_release(&piece);
				for (int i = 0; i < npieces; i++)
					free(cmd->pieces[i]);
				free(cmd->pieces);
				free(cmd->param_var);
				cmd->pieces = NULL;
				cmd->param_var = NULL;
				cmd->nparams = 0;
				cmd->kind = BCMD_SET; /* nothing left to free but expr (NULL) */
				return -1;
			}
			/* one parameter per use keeps the simple text exact */
			ALLOC_GROW(cmd->param_var, cmd->nparams + 1, alloc_params);
			cmd->param_var[cmd->nparams++] = v;
			strbuf_addf(&sql, "$%d", cmd->nparams);
			ALLOC_GROW(cmd->pieces, npieces + 1, alloc_pieces);
			cmd->pieces[npieces++] = strbuf_detach(&piece, NULL);
			continue;
		}
		strbuf_addch(&sql, *p);
		strbuf_addch(&piece, *p);
		p++;
	}
	ALLOC_GROW(cmd->pieces, npieces + 1, alloc_pieces);
	cmd->pieces[npieces++] = strbuf_detach(&piece, NULL);
	cmd->sql = strbuf_detach(&sql, NULL);
	snprintf(cmd->stmt_name, sizeof(cmd->stmt_name), "pgb_%d_%d", script_no, cmd_no);
	return 0;
}

void bench_command_text(const struct bench_command *cmd, const struct bench_value *vars,
			struct strbuf *sb)
{
	strbuf_reset(sb);
	for (int i = 0; i < cmd->nparams; i++) {
		const struct bench_value *v = &vars[cmd->param_var[i]];
		strbuf_addstr(sb, cmd->pieces[i]);
		if (v->isnull)
			strbuf_addstr(sb, "NULL");
		else
			strbuf_addf(sb, "%lld", (long long)v->i);
	}
	strbuf_addstr(sb, cmd->pieces[cmd->nparams]);
}

static struct bench_command *new_command(struct bench_script *s, int *alloc)
{
	struct bench_command *c;
	ALLOC_GROW(s->cmds, s->ncmds + 1, *alloc);
	c = &s->cmds[s->ncmds++];
	memset(c, 0, sizeof(*c));
	c->set_var = -1;
	return c;
}

/* Is the line blank or only an SQL comment? */
static int blank_line(const char *l)
{
	while (isspace((unsigned char)*l))
		l++;
	return !*l || (l[0] == '-' && l[1] == '-');
}

static void free_commands(struct bench_script *s);

/* \sleep N [us|ms|s], N an integer or :var (pgbench's), after "\sleep". */
static int sleep_command(struct parser *ps, struct bench_command *c, const char *l, int lineno)
{
	static const struct { const char *unit; int64_t us; } units[] = {
		{ "us", 1 }, { "ms", 1000 }, { "s", 1000000 },
	};
	const char *u;
	size_t k;

	c->kind = BCMD_SLEEP;
	c->line = lineno;
	c->sleep_unit = 1000000;
	while (*l == ' ' || *l == '\t')
		l++;
	if (*l != ':' && !isdigit((unsigned char)*l)) {
		snprintf(ps->err, sizeof(ps->err), "\\sleep needs a duration: N or :var, then us, "
			 "ms or s (default s)");
		return -1;
	}
	ps->p = l;
	c->expr = parse_primary(ps);
	if (!c->expr)
		return -1;
	skip_ws(ps);
	u = ps->p;
	if (!*u)
		return 0;
	for (k = 0; k < sizeof(units) / sizeof(units[0]); k++)
		if (!strcmp(u, units[k].unit)) {
			c->sleep_unit = units[k].us;
			return 0;
		}
	snprintf(ps->err, sizeof(ps->err), "\\sleep: unknown unit \"%s\" (expected us, ms or s)", u);
	return -1;
}

/* "\gset [PREFIX]" after its word at l: the prefix (malloced, NULL for
 * none) in *prefix.  0, or -1 with ps->err. */
static int gset_args(struct parser *ps, const char *l, char **prefix)
{
	const char *nm;

	*prefix = NULL;
	if (*l && *l != ' ' && *l != '\t') {
		/* \gset_p, \gset1: another word, as pgbench says */
		snprintf(ps->err, sizeof(ps->err), "unsupported meta-command \"\\gset%.32s\" "
			 "(supported: \\set, \\sleep, \\gset)", l);
		return -1;
	}
	while (*l == ' ' || *l == '\t')
		l++;
	nm = l;
	while (is_ident((unsigned char)*l))
		l++;
	if (l - nm > BENCH_GSET_PREFIX_MAX) {
		snprintf(ps->err, sizeof(ps->err), "\\gset: a prefix of at most %d characters",
			 BENCH_GSET_PREFIX_MAX);
		return -1;
	}
	if (l > nm)
		*prefix = xstrndup(nm, (size_t)(l - nm));
	while (*l == ' ' || *l == '\t')
		l++;
	if (*l) {
		snprintf(ps->err, sizeof(ps->err), "unexpected \"%s\" after \\gset (expected "
			 "\\gset or \\gset PREFIX)", l);
		free(*prefix);
		*prefix = NULL;
		return -1;
	}
	return 0;
}

/* Where a line's SQL ends in "\gset [PREFIX]" (pgbench: the meta-command
 * in place of the terminating ';'): the backslash, or NULL.  Not inside a
 * string ('...', E'...'), a quoted name or a dollar quote that opens on
 * this line, nor after "--" (a comment); a string opened on an earlier
 * line of the command is not followed. */
static const char *inline_gset(const char *l)
{
	const char *at = NULL, *dq = NULL;
	size_t dqn = 0;
	char q = 0;

	for (const char *p = l; *p; p++) {
		if (dq) {                       /* inside $tag$ ... $tag$ */
			if (!strncmp(p, dq, dqn)) {
				p += dqn - 1;
				dq = NULL;
			}
		} else if (q) {                 /* inside '...', E'...' or "..." */
			if (*p == '\\' && q == 'E' && p[1])
				p++;
			else if (*p == (q == 'E' ? '\'' : q))
				q = 0;
		} else if (*p == '-' && p[1] == '-') {
			break;
		} else if (*p == '\'' || *p == '"') {
			q = *p == '\'' && p > l && (p[-1] == 'E' || p[-1] == 'e') ? 'E' : *p;
		} else if (*p == '$') {
			const char *e = p + 1;
			while (is_ident((unsigned char)*e) && !isdigit((unsigned char)*e))
				e++;
			if (*e == '$' && (p == l || !is_ident((unsigned char)p[-1]))) {
				dq = p;
				dqn = (size_t)(e - p) + 1;
				p = e;
			}
		} else if (!strncmp(p, "\\gset", 5) && !is_ident((unsigned char)p[5])) {
			at = p;
		}
	}
	return at;
}

/* The SQL text in sql as the script's next command, gset (with prefix,
 * taken over) when it ended in \gset.  0, or -1 with ps->err. */
static int end_sql(struct parser *ps, struct bench_script *s, int *alloc, struct strbuf *sql,
		   int sql_line, int script_no, int gset, char *prefix)
{
	struct bench_command *c;

	strbuf_rtrim(sql);
	if (sql->len && sql->buf[sql->len - 1] == ';')
		strbuf_setlen(sql, sql->len - 1);
	strbuf_rtrim(sql);
	c = new_command(s, alloc);
	c->line = sql_line;
	c->gset = gset;
	c->gset_prefix = prefix;
	ps->line = sql_line;
	if (sql_command(ps, c, sql->buf, script_no, s->ncmds - 1) < 0)
		return -1;
	strbuf_reset(sql);
	return 0;
}

int bench_script_parse(struct bench_script *s, const char *text, const char *file,
		       struct bench_vars *vars, int script_no)
{
	struct parser ps = { .file = file, .vars = vars };
	struct strbuf sql = STRBUF_INIT, line = STRBUF_INIT;
	int alloc = 0, sql_line = 0, lineno = 0;
	const char *p = text;

	s->cmds = NULL;
	s->ncmds = 0;
	while (*p) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		const char *l;
		strbuf_reset(&line);
		strbuf_add(&line, p, n);
		p += n + (e ? 1 : 0);
		lineno++;
		strbuf_rtrim(&line);
		l = line.buf;
		while (isspace((unsigned char)*l))
			l++;
		if (*l == '\\') {
			char word[16], *prefix;
			int wl = 0;
			l++;
			while (isalpha((unsigned char)*l) && wl < 15)
				word[wl++] = *l++;
			word[wl] = '\0';
			ps.line = lineno;
			if (sql.len && !strcmp(word, "gset")) {
				/* SQL lines, then \gset: it ends them, as ';' would */
				if (gset_args(&ps, l, &prefix) < 0 ||
				    end_sql(&ps, s, &alloc, &sql, sql_line, script_no, 1, prefix) < 0)
					goto fail;
				continue;
			}
			if (sql.len) {
				snprintf(ps.err, sizeof(ps.err),
					 "meta-command inside an SQL command (missing \";\"?)");
				goto fail;
			}
			if (!strcmp(word, "set")) {
				struct bench_command *c;
				const char *nm;
				char *name;
				while (*l == ' ' || *l == '\t')
					l++;
				nm = l;
				while (is_ident((unsigned char)*l))
					l++;
				if (l == nm) {
					snprintf(ps.err, sizeof(ps.err), "\\set needs a variable name");
					goto fail;
				}
				name = xstrndup(nm, (size_t)(l - nm));
				ps.p = l;
				c = new_command(s, &alloc);
				c->kind = BCMD_SET;
				c->line = lineno;
				c->expr = parse_sum(&ps);
				if (c->expr) {
					skip_ws(&ps);
					if (*ps.p) {
						snprintf(ps.err, sizeof(ps.err),
							 "unexpected \"%s\" after expression", ps.p);
						free_expr(c->expr);
						c->expr = NULL;
					}
				}
				c->set_var = bench_var_index(vars, name, 1);
				free(name);
				if (!c->expr) {
					if (!ps.err[0])
						snprintf(ps.err, sizeof(ps.err), "\\set needs an expression");
					goto fail;
				}
			} else if (!strcmp(word, "gset")) {
				struct bench_command *prev = s->ncmds ? &s->cmds[s->ncmds - 1] : NULL;
				if (!prev || prev->kind != BCMD_SQL || prev->gset) {
					snprintf(ps.err, sizeof(ps.err), "\\gset must follow an SQL command");
					goto fail;
				}
				if (gset_args(&ps, l, &prev->gset_prefix) < 0)
					goto fail;
				prev->gset = 1;
			} else if (!strcmp(word, "sleep")) {
				if (sleep_command(&ps, new_command(s, &alloc), l, lineno) < 0)
					goto fail;
			} else {
				snprintf(ps.err, sizeof(ps.err), "unsupported meta-command \"\\%s\" "
					 "(supported: \\set, \\sleep, \\gset)", word);
				goto fail;
			}
			continue;
		}
		if (!sql.len && blank_line(l))
			continue;
		if (!sql.len)
			sql_line = lineno;
		else
			strbuf_addch(&sql, '\n');
		{
			/* "SELECT ... \gset [PREFIX]": the meta-command ends it */
			const char *g = inline_gset(l);
			char *prefix;
			strbuf_add(&sql, l, g ? (size_t)(g - l) : strlen(l));
			if (g) {
				ps.line = lineno;
				if (gset_args(&ps, g + 5, &prefix) < 0 ||
				    end_sql(&ps, s, &alloc, &sql, sql_line, script_no, 1, prefix) < 0)
					goto fail;
				continue;
			}
		}
		if (sql.len && sql.buf[sql.len - 1] == ';' &&
		    end_sql(&ps, s, &alloc, &sql, sql_line, script_no, 0, NULL) < 0)
			goto fail;
	}
	if (sql.len) {
		struct bench_command *c = new_command(s, &alloc);
		c->line = sql_line;
		ps.line = sql_line;
		if (sql_command(&ps, c, sql.buf, script_no, s->ncmds - 1) < 0)
			goto fail;
	}
	strbuf_release(&sql);
	strbuf_release(&line);
	if (!s->ncmds) {
		free_commands(s);
		return error("%s: script has no commands", file);
	}
	/* every variable a command reads must be set somewhere (or be predefined) */
	return 0;
fail:
	strbuf_release(&sql);
	strbuf_release(&line);
	free_commands(s);
	return error("%s:%d: %s", file, ps.line, ps.err);
}

static void free_commands(struct bench_script *s)
{
	for (int i = 0; i < s->ncmds; i++) {
		struct bench_command *c = &s->cmds[i];
		if (c->kind == BCMD_SQL) {
			for (int j = 0; j <= c->nparams; j++)
				free(c->pieces[j]);
			free(c->pieces);
			free(c->param_var);
			free(c->sql);
			free(c->gset_prefix);
		}
		free_expr(c->expr);
	}
	free(s->cmds);
	s->cmds = NULL;
	s->ncmds = 0;
}

void bench_script_free(struct bench_script *s)
{
	free_commands(s);
	free(s->name);
	free(s->file);
	s->name = NULL;
	s->file = NULL;
}
