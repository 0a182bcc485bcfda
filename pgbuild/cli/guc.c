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
 * Names compare as PostgreSQL compares them: case-insensitively, and
 * postgres -c turns '-' into '_' (ParseLongOption), so "Listen-Addresses"
 * is listen_addresses.  A row with "_*" after its name covers the name
 * and every NAME_... setting (ssl, ssl_ca_file, ...; include, include_dir,
 * include_if_exists), never a custom "sslutils.x".
 */
#include <fcntl.h>
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

int cli_guc_check_file(const char *opt, const char *path)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	const char *p;
	int line = 1, rc = 0;

	if (sfs_read(AT_FDCWD, path, SFS_IN_SETTINGS, 0, &text, &err) < 0) {
		rc = error("%s: %s", opt, err.buf);
		goto out;
	}
	/* postgresql.conf: NAME [=] VALUE per line, # comments */
	for (p = text.buf; *p && !rc; line++) {
		const char *eol = strchrnul(p, '\n'), *n;
		size_t len = 0;
		while (p < eol && (*p == ' ' || *p == '\t' || *p == '\r'))
			p++;
		n = p;
		while (n + len < eol && (cli_guc_name_ok(n + len, 1) ||
					 (unsigned char)n[len] >= 0x80))
			len++;
		if (len) {
			char *name = cli_guc_canonical(n, len);
			const struct cli_guc_refused *r = cli_guc_refusal(name);
			if (r)
				rc = error("%s \"%s\", line %d: %s %s", opt, path, line, name,
					   cli_guc_reasons[r->reason]);
			free(name);
		}
		p = *eol ? eol + 1 : eol;
	}
out:
	strbuf_release(&text);
	strbuf_release(&err);
	return rc;
}

/* The settings of PGOPTIONS ("-c a=b -cx=y --p=q", blank-separated, a
 * backslash escaping the next character, as the backend splits them). */
int cli_guc_check_env(void)
{
	const char *env = getenv("PGOPTIONS"), *p;
	struct strvec words = STRVEC_INIT;
	struct strbuf w = STRBUF_INIT;
	int rc = 0;

	if (!env)
		return 0;
	for (p = env;; p++) {
		if (*p == '\\' && p[1]) {
			strbuf_addch(&w, *++p);
		} else if (*p && *p != ' ' && *p != '\t' && *p != '\n') {
			strbuf_addch(&w, *p);
		} else {
			if (w.len)
				strvec_push(&words, w.buf);
			strbuf_reset(&w);
			if (!*p)
				break;
		}
	}
	for (size_t i = 0; i < words.nr && !rc; i++) {
		const char *set = NULL, *eq;
		const struct cli_guc_refused *r;
		char *name;
		if (!strcmp(words.v[i], "-c") && i + 1 < words.nr)
			set = words.v[++i];
		else if (!strncmp(words.v[i], "-c", 2) && words.v[i][2])
			set = words.v[i] + 2;
		else if (!strncmp(words.v[i], "--", 2))
			set = words.v[i] + 2;
		if (!set || !(eq = strchr(set, '=')) || eq == set)
			continue;       /* not a setting: the server says what it is */
		name = cli_guc_canonical(set, (size_t)(eq - set));
		if ((r = cli_guc_refusal(name)))
			rc = error("PGOPTIONS=\"%s\": %s %s (libpq sends PGOPTIONS with every "
				   "connection to the servers pgbuild starts); unset it", env, name,
				   cli_guc_reasons[r->reason]);
		free(name);
	}
	strvec_clear(&words);
	strbuf_release(&w);
	return rc;
}
