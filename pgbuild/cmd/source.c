/*
 * cmd/source.c - `pgbuild source`: fetch and unpack PostgreSQL's source
 * once (build/source.h) and print the tree a --src would build from, or
 * write it with its versions as JSON (--json FILE; the end-to-end tests
 * use it to share one unpacked tree).
 */
#include <stdio.h>

#include "pgbuild/build/source.h"
#include "pgbuild/cmd/cmd.h"

static void source_usage(FILE *fp)
{
	fprintf(fp,
		"usage: pgbuild source [--src SRC] [--json FILE]\n"
		"\n"
		"Fetch and unpack a PostgreSQL source tree (once; later calls reuse it)\n"
		"and print its directory (or write it as JSON).\n"
		"\n"
		"  --src SRC     directory, tarball, or debian:PACKAGE[=VERSION]\n"
		"                (default %s)\n"
		"  --json FILE|- write {\"dir\", \"version\", \"pkg_version\", \"spec\"} into\n"
		"                FILE instead of printing the directory (-: on\n"
		"                standard output)\n"
		"  -q, --quiet   no progress messages\n"
		"\n"
		"Cache: $PGOPT_CACHE_DIR, else /var/cache/pgoptcc (root) or\n"
		"$XDG_CACHE_HOME/pgoptcc.\n", BUILD_SOURCE_DEFAULT);
}

PGBUILD_COMMAND(source, "fetch/unpack a PostgreSQL source tree and print its directory")
{
	static const struct option opts[] = {
		{ "src", required_argument, NULL, OPT_SRC },
		CLI_OPT_JSON,
		CLI_OPT_QUIET,
		CLI_OPT_HELP,
		CLI_OPT_END
	};
	struct build_source src;
	const char *spec = NULL, *json = NULL;
	int quiet = 0, rc = 0, c;

	optind = 1;
	while ((c = cli_getopt(argc, argv, opts)) != -1) {
		switch (c) {
		case OPT_SRC: spec = optarg; break;
		case OPT_JSON: json = optarg; break;
		case 'q': quiet = 1; break;
		case 'h': source_usage(stdout); return 0;
		default:
			return cli_usage();
		}
	}
	if (optind < argc)
		return cli_usage_error("unexpected argument \"%s\"", argv[optind]);
	{
		const struct cli_output outs[] = { CLI_OUT_JSON(json), CLI_OUT_END };
		if (cli_check_outputs(outs) < 0)
			return PGBUILD_EXIT_ERROR;
	}
	if (build_source_resolve(spec, &src, quiet) < 0)
		return PGBUILD_EXIT_ERROR;
	if (json) {
		struct strbuf sb = STRBUF_INIT;
		struct json_writer jw = JSON_WRITER_INIT(&sb);
		json_object_begin(&jw);
		json_key(&jw, "spec"); json_string(&jw, src.spec);
		json_key(&jw, "dir"); json_string(&jw, src.dir);
		json_key(&jw, "version"); json_string(&jw, src.version);
		json_key(&jw, "pkg_version"); json_string(&jw, src.pkg_version);
		json_object_end(&jw);
		strbuf_addch(&sb, '\n');
		if (write_result(json, sb.buf, sb.len) < 0)
			rc = PGBUILD_EXIT_ERROR;
		strbuf_release(&sb);
	} else {
		printf("%s\n", src.dir);
	}
	build_source_release(&src);
	return rc;
}
