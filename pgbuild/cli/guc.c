/*
 * guc.c - the server settings pgbuild refuses to pass to a server it
 * starts: one table, with the reason each is refused; see cli.h.
 *
 * pgbuild's private clusters take connections only on a unix socket in a
 * 0700 directory of their own, with no TCP (listen_addresses=''), so
 * initdb's "trust" authentication lets in nobody but pgbuild and the server
 * user.  A --set given after pgbuild's own settings wins (postgres -c,
 * later ones override), so `--set listen_addresses=127.0.0.1 --set port=N`
 * would open that trusting superuser login to every local user, and from
 * there COPY ... TO PROGRAM runs code as the server user.  Settings that
 * load or run code, or move the server's files out of its directory, are
 * refused for the same reason: what they name is resolved by the server
 * user in places pgbuild does not control.
 *
 * The same settings can reach a server through PGOPTIONS, which libpq
 * sends with every connection (pgbuild's own clients, psql in the
 * regression suites): a backend applies its "-c NAME=VALUE" and
 * "--NAME=VALUE" as a superuser's session settings (session_preload_libraries
 * loads code), so the commands that start servers refuse those too.
 *
 * PGOPTIONS and --temp-config files are read the way the server reads them
 * (PostgreSQL 15), so that what the check sees is what the server applies:
 * PGOPTIONS split like pg_split_opts (utils/init/postinit.c) and its
 * switches taken like process_postgres_switches (tcop/postgres.c: getopt,
 * so switches group); a --temp-config file tokenized like the server's
 * configuration lexer (utils/misc/guc-file.l).  What either cannot read is
 * refused too: the server would not read it either, and a reading that
 * differs from the server's is how a check is bypassed.
 *
 * Names compare as PostgreSQL compares them: case-insensitively, and
 * postgres -c turns '-' into '_' (ParseLongOption), so "Listen-Addresses"
 * is listen_addresses.  A row with "_*" after its name covers the name
 * and every NAME_... setting (ssl, ssl_ca_file, ...; include, include_dir,
 * include_if_exists), never a custom "sslutils.x".
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/cli/cli.h"
#include "pgbuild/pgbuild.h"
#include "wrapper/common/safefs.h"

const char *const cli_guc_reasons[CLI_GUC_NREASONS] = {
	[CLI_GUC_OPENS] = "opens the cluster to other users (a private cluster takes "
			  "connections only on its own socket, in a 0700 directory)",
	[CLI_GUC_LOADS] = "loads code into the server",
	[CLI_GUC_RUNS] = "runs commands as the server user",
	[CLI_GUC_MOVES] = "moves the server's files out of its private directory",
	[CLI_GUC_READS] = "reads settings from another file",
};

/* Sorted by name (the unit test checks it). */
const struct cli_guc_refused cli_guc_refused[] = {
	{ "archive_cleanup_command", CLI_GUC_RUNS },
	{ "archive_command", CLI_GUC_RUNS },
	{ "archive_library", CLI_GUC_LOADS },
	{ "config_file", CLI_GUC_MOVES },
	{ "data_directory", CLI_GUC_MOVES },
	{ "dynamic_library_path", CLI_GUC_LOADS },
	{ "external_pid_file", CLI_GUC_MOVES },
	{ "hba_file", CLI_GUC_OPENS },
	{ "ident_file", CLI_GUC_OPENS },
	{ "include_*", CLI_GUC_READS },          /* include, include_dir, include_if_exists */
	{ "jit_provider", CLI_GUC_LOADS },
	{ "krb_server_keyfile", CLI_GUC_OPENS },
	{ "listen_addresses", CLI_GUC_OPENS },
	{ "local_preload_libraries", CLI_GUC_LOADS },
	{ "log_directory", CLI_GUC_MOVES },
	{ "log_filename", CLI_GUC_MOVES },
	{ "port", CLI_GUC_OPENS },
	{ "recovery_end_command", CLI_GUC_RUNS },
	{ "restore_command", CLI_GUC_RUNS },
	{ "session_preload_libraries", CLI_GUC_LOADS },
	{ "shared_preload_libraries", CLI_GUC_LOADS },
	{ "ssl_*", CLI_GUC_OPENS },              /* ssl, ssl_cert_file, ssl_passphrase_command ... */
	{ "stats_temp_directory", CLI_GUC_MOVES },
	{ "unix_socket_directories", CLI_GUC_OPENS },
	{ "unix_socket_group", CLI_GUC_OPENS },
	{ "unix_socket_permissions", CLI_GUC_OPENS },
	{ NULL, 0 }
};

int cli_guc_name_ok(const char *name, size_t len)
{
	if (!len)
		return 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)name[i];
		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '_' || ch == '.' || ch == '-'))
			return 0;
	}
	return 1;
}

char *cli_guc_canonical(const char *name, size_t len)
{
	char *s = xstrndup(name, len);
	for (char *p = s; *p; p++)
		*p = *p == '-' ? '_' : *p >= 'A' && *p <= 'Z' ? (char)(*p - 'A' + 'a') : *p;
	return s;
}

/* Does the canonical name match a row ("ssl_*": ssl and ssl_...)? */
static int row_matches(const char *row, const char *name)
{
	size_t n = strlen(row);
	if (n > 2 && !strcmp(row + n - 2, "_*"))
		return !strncmp(name, row, n - 2) && (name[n - 2] == '\0' || name[n - 2] == '_');
	return !strcmp(row, name);
}

const struct cli_guc_refused *cli_guc_refusal(const char *name)
{
	char *canon = cli_guc_canonical(name, strlen(name));
	const struct cli_guc_refused *r = NULL;
	for (const struct cli_guc_refused *t = cli_guc_refused; t->name && !r; t++)
		if (row_matches(t->name, canon))
			r = t;
	free(canon);
	return r;
}

int cli_parse_setting(const char *opt, const char *arg, struct strvec *out)
{
	const char *eq = strchr(arg, '=');
	const struct cli_guc_refused *r;
	char *name;

	if (!eq || eq == arg)
		return error("invalid value \"%s\" for %s: expected NAME=VALUE", arg, opt);
	if (!cli_guc_name_ok(arg, (size_t)(eq - arg)))
		return error("invalid value \"%s\" for %s: expected NAME=VALUE, NAME made of "
			     "letters, digits, _, - and .", arg, opt);
	name = cli_guc_canonical(arg, (size_t)(eq - arg));
	r = cli_guc_refusal(name);
	if (r) {
		error("invalid value \"%s\" for %s: %s %s", arg, opt, name, cli_guc_reasons[r->reason]);
		free(name);
		return -1;
	}
	/* the name as the server knows it: later checks (max_connections=)
	 * and the JSON's settings see one spelling */
	strvec_pushf(out, "%s%s", name, eq);
	free(name);
	return 0;
}

/* The one refusal of a setting read from src: an error naming it, its
 * name and the reason; 0 when name is not refused. */
static int refuse(const char *src, const char *name, size_t len, const char *tail)
{
	char *canon = cli_guc_canonical(name, len);
	const struct cli_guc_refused *r = cli_guc_refusal(canon);
	int rc = r ? error("%s: %s %s%s", src, canon, cli_guc_reasons[r->reason], tail) : 0;
	free(canon);
	return rc;
}

/* ---------------- PGOPTIONS ---------------- */

/* isspace() of the C locale, as pg_split_opts calls it */
static int opt_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

void cli_guc_split_options(const char *s, struct strvec *words)
{
	struct strbuf w = STRBUF_INIT;

	while (*s) {
		int escaped = 0;
		while (opt_space(*s))
			s++;
		if (!*s)
			break;
		strbuf_reset(&w);
		/* one word: up to an unescaped blank; a backslash takes the next
		 * character as it is (a last one is dropped) */
		for (; *s && (escaped || !opt_space(*s)); s++) {
			if (!escaped && *s == '\\') {
				escaped = 1;
			} else {
				escaped = 0;
				strbuf_addch(&w, *s);
			}
		}
		strvec_push(words, w.buf);
	}
	strbuf_release(&w);
}

/*
 * The backend's switches (process_postgres_switches' getopt string
 * "B:bc:C:D:d:EeFf:h:ijk:lN:nOPp:r:S:sTt:v:W:-:"), one row each: whether
 * it takes an argument, and the setting it sets (NULL: none that the
 * refusal list could name; "=" the argument is NAME=VALUE).  -D and -r are
 * honoured only on the server's own command line; -D is read as
 * data_directory all the same.
 */
static const struct opt_switch {
	char letter;            /* the switch */
	char arg;               /* 1: takes an argument */
	const char *setting;    /* the setting it sets, "=" NAME=VALUE, or NULL */
	const char *value;      /* the value of a switch without argument */
} opt_switches[] = {
	{ '-', 1, "=", NULL },
	{ 'B', 1, "shared_buffers", NULL },
	{ 'C', 1, NULL, NULL },
	{ 'D', 1, "data_directory", NULL },
	{ 'E', 0, NULL, NULL },
	{ 'F', 0, "fsync", "false" },
	{ 'N', 1, "max_connections", NULL },
	{ 'O', 0, "allow_system_table_mods", "true" },
	{ 'P', 0, "ignore_system_indexes", "true" },
	{ 'S', 1, "work_mem", NULL },
	{ 'T', 0, NULL, NULL },
	{ 'W', 1, "post_auth_delay", NULL },
	{ 'b', 0, NULL, NULL },
	{ 'c', 1, "=", NULL },
	{ 'd', 1, NULL, NULL },         /* debug levels */
	{ 'e', 0, "datestyle", "euro" },
	{ 'f', 1, NULL, NULL },         /* enable_* off */
	{ 'h', 1, "listen_addresses", NULL },
	{ 'i', 0, "listen_addresses", "*" },
	{ 'j', 0, NULL, NULL },
	{ 'k', 1, "unix_socket_directories", NULL },
	{ 'l', 0, "ssl", "true" },
	{ 'n', 0, NULL, NULL },
	{ 'p', 1, "port", NULL },
	{ 'r', 1, NULL, NULL },
	{ 's', 0, "log_statement_stats", "true" },
	{ 't', 1, NULL, NULL },         /* log_*_stats on */
	{ 'v', 1, NULL, NULL },
	{ 0, 0, NULL, NULL }
};

static const struct opt_switch *opt_find(char letter)
{
	for (const struct opt_switch *o = opt_switches; o->letter; o++)
		if (o->letter == letter)
			return o;
	return NULL;
}

/* The backend stops reading here: why in err, unless an earlier stray
 * word is there already (rc); 1. */
__attribute__((format(printf, 3, 4)))
static int fail(struct strbuf *err, int rc, const char *fmt, ...)
{
	va_list ap;
	if (rc)
		return 1;
	va_start(ap, fmt);
	strbuf_vaddf(err, fmt, ap);
	va_end(ap);
	return 1;
}

int cli_guc_read_options(const char *options, struct strvec *settings, struct strbuf *err)
{
	struct strvec words = STRVEC_INIT;
	int rc = 0, ended = 0, stop = 0;

	cli_guc_split_options(options, &words);
	/* getopt as glibc's (permuting): every word that starts with '-' is a
	 * group of switches, "--" alone ends them; a word that is not one is
	 * refused, as the backend refuses it, after taking the switches that
	 * follow it (an unknown switch, a missing argument, a -c without '='
	 * stop the backend at once) */
	for (size_t i = 0; i < words.nr && !stop; i++) {
		const char *w = words.v[i];
		if (ended || w[0] != '-' || !w[1]) {
			if (!rc)
				strbuf_addf(err, "\"%s\" is not a switch", w);
			rc = -1;
			continue;
		}
		if (!strcmp(w, "--")) {
			ended = 1;
			continue;
		}
		for (const char *c = w + 1; *c && !stop; c++) {
			const struct opt_switch *o = opt_find(*c);
			const char *arg = NULL;
			if (!o) {
				stop = fail(err, rc, "-%c is not a switch of the server", *c);
				break;
			}
			if (o->arg) {
				/* the rest of the word, else the next word */
				if (c[1])
					arg = c + 1;
				else if (i + 1 < words.nr)
					arg = words.v[++i];
				else {
					stop = fail(err, rc, "-%c needs an argument", *c);
					break;
				}
			}
			if (o->setting && !strcmp(o->setting, "=")) {
				size_t n = strcspn(arg, "=");
				char *name;
				if (!arg[n]) {
					stop = fail(err, rc, "%s%s needs a value (NAME=VALUE)",
						    o->letter == '-' ? "--" : "-c ", arg);
					break;
				}
				name = cli_guc_canonical(arg, n);
				strvec_pushf(settings, "%s%s", name, arg + n);
				free(name);
			} else if (o->setting) {
				strvec_pushf(settings, "%s=%s", o->setting, o->arg ? arg : o->value);
			}
			if (o->arg)
				break;  /* the argument took the rest of the word */
		}
	}
	strvec_clear(&words);
	return rc || stop ? -1 : 0;
}

int cli_guc_check_env(void)
{
	const char *env = getenv("PGOPTIONS");
	struct strvec settings = STRVEC_INIT;
	struct strbuf why = STRBUF_INIT, src = STRBUF_INIT;
	static const char tail[] = " (libpq sends PGOPTIONS with every connection to the "
				   "servers pgbuild starts); unset it";
	int rc = 0, unread;

	if (!env)
		return 0;
	unread = cli_guc_read_options(env, &settings, &why);
	strbuf_addf(&src, "PGOPTIONS=\"%s\"", env);
	/* a refused setting first (one before an unreadable word was taken
	 * all the same), then what the server could not read */
	for (size_t i = 0; i < settings.nr && !rc; i++)
		rc = refuse(src.buf, settings.v[i], strcspn(settings.v[i], "="), tail);
	if (!rc && unread < 0)
		rc = error("%s: %s: the server would refuse every connection (as PostgreSQL reads "
			   "PGOPTIONS: blank-separated switches, -c NAME=VALUE, --NAME=VALUE); unset "
			   "it", src.buf, why.buf);
	strvec_clear(&settings);
	strbuf_release(&why);
	strbuf_release(&src);
	return rc;
}

/* ---------------- postgresql.conf (--temp-config) ---------------- */

/* The tokens of guc-file.l, in its rule order (a tie goes to the first). */
enum conf_token {
	CONF_EOF,
	CONF_EOL,               /* \n */
	CONF_BLANK,             /* [ \t\r]+ */
	CONF_COMMENT,           /* #.* */
	CONF_ID,                /* {LETTER}{LETTER_OR_DIGIT}* */
	CONF_QUALIFIED_ID,      /* {ID}.{ID} */
	CONF_STRING,            /* '([^'\\\n]|\\.|'')*' */
	CONF_UNQUOTED_STRING,   /* {LETTER}({LETTER_OR_DIGIT}|[-._:/])* */
	CONF_INTEGER,           /* {SIGN}?({DIGIT}+|0x{HEXDIGIT}+){UNIT_LETTER}* */
	CONF_REAL,              /* {SIGN}?{DIGIT}*.{DIGIT}*{EXPONENT}? */
	CONF_EQUALS,            /* = */
	CONF_ERROR              /* any other character */
};

static int conf_letter(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c >= 0x80;
}

static int conf_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static int conf_alpha(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

static int conf_hex(unsigned char c)
{
	return conf_digit(c) || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}

static size_t conf_id(const char *p, const char *end)
{
	size_t n = 0;
	if (p < end && conf_letter((unsigned char)*p))
		for (n = 1; p + n < end && (conf_letter((unsigned char)p[n]) ||
					    conf_digit((unsigned char)p[n])); n++)
			;
	return n;
}

static size_t conf_qualified(const char *p, const char *end)
{
	size_t a = conf_id(p, end), b;
	if (!a || p + a >= end || p[a] != '.')
		return 0;
	b = conf_id(p + a + 1, end);
	return b ? a + 1 + b : 0;
}

static size_t conf_unquoted(const char *p, const char *end)
{
	size_t n = 0;
	if (p < end && conf_letter((unsigned char)*p))
		for (n = 1; p + n < end && (conf_letter((unsigned char)p[n]) ||
					    conf_digit((unsigned char)p[n]) ||
					    strchr("-._:/", p[n])); n++)
			;
	return n;
}

/* the longest quoted string at p: it may end at any quote not doubled */
static size_t conf_string(const char *p, const char *end)
{
	size_t i = 1, last = 0;
	if (p >= end || *p != '\'')
		return 0;
	while (p + i < end) {
		char c = p[i];
		if (c == '\'') {
			last = i + 1;
			if (p + i + 1 < end && p[i + 1] == '\'') {
				i += 2;
				continue;
			}
			break;
		} else if (c == '\\') {
			if (p + i + 1 >= end || p[i + 1] == '\n')
				break;
			i += 2;
		} else if (c == '\n') {
			break;
		} else {
			i++;
		}
	}
	return last;
}

static size_t conf_integer(const char *p, const char *end)
{
	size_t s = p < end && (*p == '+' || *p == '-'), a = 0, b = 0, n;
	for (n = s; p + n < end && conf_digit((unsigned char)p[n]); n++)
		;
	if (n > s) {
		while (p + n < end && conf_alpha((unsigned char)p[n]))
			n++;
		a = n;
	}
	if (p + s + 2 < end && p[s] == '0' && p[s + 1] == 'x' && conf_hex((unsigned char)p[s + 2])) {
		for (n = s + 2; p + n < end && conf_hex((unsigned char)p[n]); n++)
			;
		while (p + n < end && conf_alpha((unsigned char)p[n]))
			n++;
		b = n;
	}
	return a > b ? a : b;
}

static size_t conf_real(const char *p, const char *end)
{
	size_t n = p < end && (*p == '+' || *p == '-'), e;
	while (p + n < end && conf_digit((unsigned char)p[n]))
		n++;
	if (p + n >= end || p[n] != '.')
		return 0;
	n++;
	while (p + n < end && conf_digit((unsigned char)p[n]))
		n++;
	/* an exponent only when whole */
	if (p + n < end && (p[n] == 'e' || p[n] == 'E')) {
		e = n + 1;
		if (p + e < end && (p[e] == '+' || p[e] == '-'))
			e++;
		if (p + e < end && conf_digit((unsigned char)p[e])) {
			while (p + e < end && conf_digit((unsigned char)p[e]))
				e++;
			n = e;
		}
	}
	return n;
}

/* The token at *p (its length in *len), as flex picks it: the longest
 * match, a tie to the earlier rule. */
static enum conf_token conf_next(const char *p, const char *end, size_t *len)
{
	size_t best = 0, n;
	enum conf_token tok = CONF_ERROR;

	if (p >= end) {
		*len = 0;
		return CONF_EOF;
	}
	if (*p == '\n') {
		*len = 1;
		return CONF_EOL;
	}
	if (*p == ' ' || *p == '\t' || *p == '\r') {
		for (n = 1; p + n < end && (p[n] == ' ' || p[n] == '\t' || p[n] == '\r'); n++)
			;
		*len = n;
		return CONF_BLANK;
	}
	if (*p == '#') {
		for (n = 1; p + n < end && p[n] != '\n'; n++)
			;
		*len = n;
		return CONF_COMMENT;
	}
#define CONF_TRY(fn, t) do { n = fn(p, end); if (n > best) { best = n; tok = t; } } while (0)
	CONF_TRY(conf_id, CONF_ID);
	CONF_TRY(conf_qualified, CONF_QUALIFIED_ID);
	CONF_TRY(conf_string, CONF_STRING);
	CONF_TRY(conf_unquoted, CONF_UNQUOTED_STRING);
	CONF_TRY(conf_integer, CONF_INTEGER);
	CONF_TRY(conf_real, CONF_REAL);
#undef CONF_TRY
	if (*p == '=' && !best) {
		*len = 1;
		return CONF_EQUALS;
	}
	*len = best ? best : 1;
	return tok;
}

/* A token past blanks and comments. */
static enum conf_token conf_token(const char **p, const char *end, const char **start,
				  size_t *len)
{
	enum conf_token t;
	do {
		*start = *p;
		t = conf_next(*p, end, len);
		*p += *len;
	} while (t == CONF_BLANK || t == CONF_COMMENT);
	return t;
}

/* A quoted value without its quotes and escapes (DeescapeQuotedString). */
static void conf_deescape(const char *s, size_t len, struct strbuf *out)
{
	for (size_t i = 1; i + 1 < len; i++) {
		char c = s[i];
		if (c == '\\') {
			c = s[++i];
			switch (c) {
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'n': c = '\n'; break;
			case 'r': c = '\r'; break;
			case 't': c = '\t'; break;
			default:
				if (c >= '0' && c <= '7') {
					int v = 0, k;
					for (k = 0; k < 3 && i + k + 1 < len && s[i + k] >= '0' &&
						    s[i + k] <= '7'; k++)
						v = (v << 3) + (s[i + k] - '0');
					i += (size_t)k - 1;
					c = (char)v;
				}
			}
		} else if (c == '\'' && s[i + 1] == '\'') {
			i++;
		}
		strbuf_addch(out, c);
	}
}

int cli_guc_read_conf(const char *text, size_t len, cli_guc_conf_fn fn, void *ctx, int *line,
		      struct strbuf *err)
{
	const char *p = text, *end = text + len, *nul = memchr(text, '\0', len);
	struct strbuf value = STRBUF_INIT;
	int rc = 0;

	*line = 1;
	if (nul) {
		/* the server's lexer reads past one, pg_regress's copy stops the
		 * line there and joins the next: two readings, none checked */
		for (const char *q = text; q < nul; q++)
			*line += *q == '\n';
		strbuf_addstr(err, "a NUL byte");
		return -1;
	}
	/* one logical line per round, as ParseConfigFp */
	for (;;) {
		const char *name, *val, *tok;
		size_t nlen, vlen, tlen;
		enum conf_token t = conf_token(&p, end, &name, &nlen);

		if (t == CONF_EOF)
			break;
		if (t == CONF_EOL) {
			(*line)++;
			continue;
		}
		if (t != CONF_ID && t != CONF_QUALIFIED_ID) {
			strbuf_addf(err, "expected a setting name, found \"%.*s\"", (int)nlen, name);
			rc = -1;
			break;
		}
		t = conf_token(&p, end, &val, &vlen);
		if (t == CONF_EQUALS)
			t = conf_token(&p, end, &val, &vlen);
		if (t != CONF_ID && t != CONF_STRING && t != CONF_INTEGER && t != CONF_REAL &&
		    t != CONF_UNQUOTED_STRING) {
			if (t == CONF_EOL || t == CONF_EOF)
				strbuf_addf(err, "%.*s has no value", (int)nlen, name);
			else
				strbuf_addf(err, "%.*s: \"%.*s\" is not a value (quote it)", (int)nlen,
					    name, (int)vlen, val);
			rc = -1;
			break;
		}
		t = conf_token(&p, end, &tok, &tlen);
		if (t != CONF_EOL && t != CONF_EOF) {
			strbuf_addf(err, "%.*s: \"%.*s\" after its value", (int)nlen, name, (int)tlen,
				    tok);
			rc = -1;
			break;
		}
		strbuf_reset(&value);
		if (*val == '\'')
			conf_deescape(val, vlen, &value);
		else
			strbuf_add(&value, val, vlen);
		{
			char *canon = cli_guc_canonical(name, nlen);
			rc = fn(canon, value.buf, *line, ctx);
			free(canon);
		}
		if (rc || t == CONF_EOF)
			break;
		(*line)++;
	}
	strbuf_release(&value);
	return rc;
}

/* What cli_guc_check_file reports a refused setting with. */
struct conf_check {
	const char *opt;        /* "--temp-config" */
	const char *path;       /* the file */
};

static int conf_check_one(const char *name, const char *value, int line, void *ctx)
{
	const struct conf_check *c = ctx;
	const struct cli_guc_refused *r = cli_guc_refusal(name);
	(void)value;
	return r ? error("%s \"%s\", line %d: %s %s", c->opt, c->path, line, name,
			 cli_guc_reasons[r->reason]) : 0;
}

int cli_guc_check_file(const char *opt, const char *path)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	struct conf_check c = { opt, path };
	int rc = 0, line;

	if (sfs_read(AT_FDCWD, path, SFS_IN_SETTINGS, 0, &text, &err) < 0) {
		rc = error("%s: %s", opt, err.buf);
	} else {
		/* the first refused setting or unreadable line, in file order */
		rc = cli_guc_read_conf(text.buf, text.len, conf_check_one, &c, &line, &err);
		if (rc < 0 && err.len)
			error("%s \"%s\", line %d: %s (the server reads NAME = VALUE, one a line, "
			      "and would not start)", opt, path, line, err.buf);
		rc = rc ? -1 : 0;
	}
	strbuf_release(&text);
	strbuf_release(&err);
	return rc;
}
