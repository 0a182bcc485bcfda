/*
 * cli.c - getopt over a command's table, the usage hint, and the shared
 * values; see cli.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/bench/bench.h"
#include "pgbuild/cli/cli.h"
#include "pgbuild/metric/workloads.h"
#include "pgbuild/pgbuild.h"
#include "wrapper/common/suggest.h"
#include "wrapper/policy/vocab.h"

static const char *command;       /* NULL: pgbuild itself */

void cli_set_command(const char *name)
{
	command = name;
}

const char *cli_command(void)
{
	return command;
}

/* "--name" of the row whose code is val, else NULL. */
static const char *long_name_of(const struct option *longopts, int val)
{
	for (const struct option *o = longopts; o->name; o++)
		if (!o->flag && o->val == val)
			return o->name;
	return NULL;
}

/* Has the table an option named name? */
static int has_option(const struct option *longopts, const char *name)
{
	for (const struct option *o = longopts; o->name; o++)
		if (!strcmp(o->name, name))
			return 1;
	return 0;
}

/*
 * Spellings whose meaning moved: an input install is --install DIR, and
 * --prefix DIR is only ever where a command installs; a file a command
 * wrote and another reads is --X-result FILE (--gate is the threshold
 * everywhere, --gate-result FILE the gate's result); a command's inputs
 * are named by role (--inspect-baseline, --inspect-candidate).  A command
 * that has `now` (and `also`, when set) but not `old` refuses `old` with
 * why, so that an older command line fails at once instead of running
 * with an input taken for an output (`bolt --prefix IN --out OUT`) or
 * with `old` taken as the abbreviation of a longer option (`--gate` of
 * `--gate-result`).  An `old` of one letter is the short option -old.
 */
static const struct {
	const char *old;        /* the name as typed, without "--" */
	const char *now;        /* the option the command has instead */
	const char *also;       /* and this one too (NULL: no condition) */
	const char *why;        /* the error */
} moved[] = {
	{ "gate", "gate-result", NULL,
	  "--gate is a threshold expression (gate, build, run, pgo, deb); the gate's "
	  "result file is --gate-result FILE" },
	{ "inspect", "inspect-candidate", NULL,
	  "--inspect is now --inspect-candidate FILE (B's, as --inspect-baseline FILE is A's)" },
	{ "prefix", "candidate", "baseline",
	  "--prefix names where a command installs; the installs compared are --baseline DIR "
	  "and --candidate DIR" },
	{ "install", "candidate", "baseline",
	  "--install names one installed PostgreSQL; the installs compared are --baseline DIR "
	  "and --candidate DIR" },
	{ "prefix", "candidate-prefix", NULL,
	  "--prefix: where run installs the candidate is --candidate-prefix DIR (the baseline "
	  "is --baseline DIR)" },
	{ "prefix", "install", NULL,
	  "--prefix names where a command installs; the installed PostgreSQL to use is "
	  "--install DIR" },
	{ "out", "prefix", "install",
	  "--out is now --prefix DIR, where a command installs (and the installed "
	  "PostgreSQL it reads is --install DIR)" },
	{ "low-prefix", "low-install", NULL,
	  "--low-prefix names an installed PostgreSQL, which is --low-install DIR (a "
	  "prefix is where a command installs)" },
	{ "high-prefix", "high-install", NULL,
	  "--high-prefix names an installed PostgreSQL, which is --high-install DIR (a "
	  "prefix is where a command installs)" },
	{ "W", "train", NULL,
	  "-W (--workload) names the workloads a command judges a build on; this command's "
	  "workloads are what it trains or searches on: --train LIST" },
	{ "workload", "train", NULL,
	  "--workload (-W) names the workloads a command judges a build on; this command's "
	  "workloads are what it trains or searches on: --train LIST" },
	{ "time-budget", "max-time", NULL,
	  "--time-budget H is now --max-time TIME (90s, 10m, 2h)" },
	/* pgbench's connection options, in bench (which has --connect) */
	{ "h", "connect", NULL,
	  "-h HOST is pgbench's host: bench starts a server of its own (--install DIR), or "
	  "runs against yours with --connect 'host=HOST port=PORT user=USER dbname=DB' "
	  "(help: --help)" },
	{ "p", "connect", NULL,
	  "-p PORT is pgbench's port: give it in --connect 'host=HOST port=PORT ...', or let "
	  "bench start a server of its own (--install DIR)" },
	{ "U", "connect", NULL,
	  "-U USER is pgbench's user: give it in --connect 'host=HOST user=USER ...', or let "
	  "bench start a server of its own (--install DIR)" },
	{ "random-seed", "seed", "connect",
	  "--random-seed is --seed N here (the random functions' seed)" },
};

/* The error of a moved spelling name (without "--") in this table, else NULL. */
static const char *moved_why(const char *name, const struct option *longopts)
{
	for (size_t i = 0; i < sizeof(moved) / sizeof(*moved); i++)
		if (!strcmp(name, moved[i].old) && has_option(longopts, moved[i].now) &&
		    (!moved[i].also || has_option(longopts, moved[i].also)) &&
		    !has_option(longopts, moved[i].old))
			return moved[i].why;
	return NULL;
}

int cli_option_error(const char *word, const struct option *longopts)
{
	const char *names[256], *near, *why, *cmd = cli_command();
	struct strbuf name = STRBUF_INIT, could = STRBUF_INIT;
	size_t n = 0, nmatch = 0;
	int rc;

	/* the name as typed, without "--" and "=VALUE" */
	strbuf_add(&name, word + 2, strcspn(word + 2, "="));
	for (const struct option *o = longopts; o->name && n + 1 < sizeof(names) / sizeof(*names);
	     o++) {
		names[n++] = o->name;
		if (name.len && !strncmp(o->name, name.buf, name.len)) {
			strbuf_addf(&could, "%s--%s", nmatch ? ", " : "", o->name);
			nmatch++;
		}
	}
	names[n] = NULL;
	near = suggest_word(name.buf, names);
	if ((why = moved_why(name.buf, longopts))) {
		rc = error("%s", why);
		goto out;
	}
	if (nmatch > 1)
		rc = error("ambiguous option \"%s\" for pgbuild%s%s (could be %s)", word,
			   cmd ? " " : "", cmd ? cmd : "", could.buf);
	else if (near)
		rc = error("unknown option \"%s\" for pgbuild%s%s (did you mean \"--%s\"?)", word,
			   cmd ? " " : "", cmd ? cmd : "", near);
	else
		rc = error("unknown option \"%s\" for pgbuild%s%s", word, cmd ? " " : "",
			   cmd ? cmd : "");
out:
	strbuf_release(&name);
	strbuf_release(&could);
	return rc;
}

/* getopt's '?' or ':' in words: the one error, after which the command
 * prints the hint (cli_usage). */
static void bad_option(int c, char **argv, const struct option *longopts)
{
	const char *word = optind > 0 ? argv[optind - 1] : "";
	const char *cmd = cli_command(), *name;
	int is_long = !strncmp(word, "--", 2) && word[2];

	if (c == ':') {
		if (is_long)
			error("option \"%.*s\" needs a value", (int)strcspn(word, "="), word);
		else if ((name = long_name_of(longopts, optopt)))
			error("option \"-%c\" (--%s) needs a value", optopt, name);
		else
			error("option \"-%c\" needs a value", optopt);
	} else if (is_long && optopt) {
		/* --quiet=x: a value for an option that takes none */
		error("option \"%s\" takes no value", word);
	} else if (is_long) {
		cli_option_error(word, longopts);
	} else if ((name = moved_why((char[]){ (char)optopt, '\0' }, longopts))) {
		error("%s", name);
	} else {
		error("unknown option \"-%c\" for pgbuild%s%s", optopt, cmd ? " " : "",
		      cmd ? cmd : "");
	}
}

int cli_getopt(int argc, char **argv, const struct option *longopts)
{
	/* "+"-less, as getopt_long: options and arguments may mix; a leading
	 * ':' and opterr = 0: getopt prints nothing, and a missing value is
	 * told from an unknown option (':' against '?') */
	char shorts[128];
	size_t n = 0;
	int c, idx = -1;

	shorts[n++] = ':';
	for (const struct option *o = longopts; o->name && n + 3 < sizeof(shorts); o++) {
		if (o->flag || o->val <= 0 || o->val > 127 || memchr(shorts + 1, o->val, n - 1))
			continue;
		shorts[n++] = (char)o->val;
		if (o->has_arg == required_argument)
			shorts[n++] = ':';
	}
	shorts[n] = '\0';
	opterr = 0;
	c = getopt_long(argc, argv, shorts, longopts, &idx);
	if (c == '?' || c == ':') {
		bad_option(c, argv, longopts);
		return '?';
	}
	if (idx >= 0) {
		/* the word as typed: before its value when that was the next word */
		const char *word = argv[optind - (optarg && optind >= 2 && optarg == argv[optind - 1]
						  ? 2 : 1)];
		size_t len = strcspn(word + 2, "=");
		if (!strncmp(word, "--", 2) && strlen(longopts[idx].name) != len) {
			/* an abbreviation: of a moved spelling, that spelling's error */
			char *name = xstrndup(word + 2, len);
			const char *why = moved_why(name, longopts);
			free(name);
			if (why) {
				error("%s", why);
				return '?';
			}
		}
	}
	return c;
}

int cli_usage(void)
{
	if (command)
		fprintf(stderr, "Try \"pgbuild %s --help\" for more information.\n", command);
	else
		fprintf(stderr, "Try \"pgbuild --help\" for more information.\n");
	return PGBUILD_EXIT_ERROR;
}

int cli_usage_error(const char *fmt, ...)
{
	char msg[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	error("%s", msg);
	return cli_usage();
}

int cli_parse_clients(const char *arg, int *out)
{
	return cli_parse_int("--clients", arg, 1, CLI_CLIENTS_MAX, out);
}

int cli_parse_duration(const char *arg, double *out)
{
	return cli_parse_seconds("--duration", arg, 0, out);
}

int cli_parse_scale(const char *arg, int *out)
{
	return cli_parse_int("--scale", arg, 1, CLI_SCALE_MAX, out);
}

int cli_parse_jobs(const char *arg, int *out)
{
	return cli_parse_int("--jobs", arg, 1, CLI_JOBS_MAX, out);
}

int cli_parse_weaken(const char *arg)
{
	const char *env = getenv("PGOPT_WEAKEN");
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	unsigned mask = 0;
	int rc = 0;

	if (env && vocab_parse_weaken(env, &mask, &err) < 0)
		rc = error("PGOPT_WEAKEN=%s: %s", env, err.buf);
	else if (vocab_parse_weaken(arg, &mask, &err) < 0)
		rc = error("invalid value \"%s\" for --weaken: %s", arg, err.buf);
	if (rc == 0) {
		vocab_weaken_text(mask, &text);
		setenv("PGOPT_WEAKEN", text.buf, 1);
	}
	strbuf_release(&err);
	strbuf_release(&text);
	return rc;
}

int cli_parse_time(const char *opt, const char *arg, double *out)
{
	size_t len = strlen(arg);
	double unit = 1, v;
	char *num;
	int rc;
	if (len > 1 && strchr("smh", arg[len - 1])) {
		unit = arg[len - 1] == 'h' ? 3600 : arg[len - 1] == 'm' ? 60 : 1;
		len--;
	}
	num = xstrndup(arg, len);
	rc = cli_parse_number(opt, num, 0, 1e7, &v);
	free(num);
	if (rc < 0)
		return -1;
	if (v * unit < 1)
		return error("invalid value \"%s\" for %s: at least 1 second, e.g. 90s, "
			     "10m or 1h", arg, opt);
	*out = v * unit;
	return 0;
}

int cli_parse_budget(const char *arg, double *out)
{
	return cli_parse_time("--budget", arg, out);
}

static int parse_workloads(const char *arg, struct strvec *out, unsigned also)
{
	size_t first = out->nr;
	cli_parse_list(arg, out);
	if (out->nr == first)
		return error("invalid value \"%s\" for --workload: expected a workload name "
			     "(%s%s%s)", arg, BENCH_WORKLOAD_NAMES, also ? ", " : "",
			     also ? workloads_list(also) : "");
	/* a misspelt workload is an error now, not after a build */
	for (size_t i = first; i < out->nr; i++)
		if (!(also && workloads_has(out->v[i], also)) &&
		    bench_workload_check(out->v[i]) < 0)
			return -1;
	return 0;
}

int cli_parse_workloads(const char *arg, struct strvec *out)
{
	return parse_workloads(arg, out, 0);
}

int cli_parse_training(const char *arg, struct strvec *out)
{
	return parse_workloads(arg, out, WL_SUITE);
}
