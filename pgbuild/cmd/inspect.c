/*
 * cmd/inspect.c - `pgbuild inspect`: its options and their checks; the
 * records are printed by report/inspect.h.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pgbuild/cmd/cmd.h"
#include "pgbuild/elf/elfrec.h"
#include "pgbuild/report/inspect.h"

static void inspect_usage(FILE *fp)
{
	fprintf(fp,
		"usage: pgbuild inspect [OPTIONS] FILE...\n"
		"\n"
		"Print the per-translation-unit and per-function optimization record\n"
		"(.pgopt.log, .GCC.command.line) of objects, static archives,\n"
		"executables and shared libraries.\n"
		"\n"
		"  --json FILE|-    one JSON document {\"units\":[{\"tu\":...,\"flags\":[...],\n"
		"                   \"functions\":[...]}],\"files\":[...]} into FILE instead\n"
		"                   of the text (-: on standard output)\n"
		"  --units          one line per translation unit, no function table\n"
		"  --sites          one line per inlined call site:\n"
		"                   TU FUNCTION FILE:LINE:COL CALLEE STAGE (tab separated)\n"
		"  --function NAME  only functions whose name or source name is NAME\n"
		"  --tu PATH        only the translation unit PATH\n"
		"  --require        accepted for older scripts: a file without a record\n"
		"                   always exits 1\n"
		"  --debug-dir DIR  read the records of a binary that holds none from its\n"
		"                   side file DIR/.build-id/XX/REST.pgopt (its build-id), else\n"
		"                   its debug file REST.debug if that holds them (rpm's)\n"
		"  -q, --quiet      no totals line after the text: the records only\n"
		"  -h, --help       this text\n"
		"\n"
		CLI_EXIT_CODES_HELP
		"Here 1 is nothing to show (a file holds no pgopt record, or nothing\n"
		"matches --function/--tu; a sentence says which), 2 unreadable or corrupt\n"
		"input.\n");
}

/*
 * Is path an object, program, library or archive?  --json once took no
 * value, so `inspect --json a.o b.o` of an older script names a.o as the
 * FILE the document replaces: refused, never written over.
 */
static int is_binary(const char *path)
{
	unsigned char magic[8];
	int fd = sfs_open_input(AT_FDCWD, path, SFS_IN_BINARY, 0, NULL, NULL), bin = 0;
	if (fd >= 0) {
		ssize_t n = read(fd, magic, sizeof(magic));
		bin = (n >= 4 && !memcmp(magic, "\177ELF", 4)) ||
		      (n == 8 && !memcmp(magic, "!<arch>\n", 8));
		close(fd);
	}
	return bin;
}

PGBUILD_COMMAND(inspect, "show per-unit and per-function optimization records of binaries")
{
	static const struct option opts[] = {
		CLI_OPT_JSON,
		{ "sites", no_argument, NULL, OPT_SITES },
		{ "units", no_argument, NULL, OPT_UNITS },
		{ "function", required_argument, NULL, OPT_FUNCTION },
		{ "tu", required_argument, NULL, OPT_TU },
		{ "require", no_argument, NULL, OPT_REQUIRE },
		{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
		CLI_OPT_QUIET,
		CLI_OPT_HELP,
		CLI_OPT_END
	};
	struct inspect_opts o = { 0 };
	const char *json = NULL;
	struct inspect_totals t = { 0 };
	struct strbuf out = STRBUF_INIT, files = STRBUF_INIT;
	struct json_writer jw, fw;
	int c, rc = 0, quiet = 0;

	optind = 1;
	while ((c = cli_getopt(argc, argv, opts)) != -1) {
		switch (c) {
		case OPT_JSON: json = optarg; o.json = 1; break;
		case OPT_SITES: o.sites = 1; break;
		case OPT_UNITS: o.units_only = 1; break;
		case OPT_FUNCTION: o.function = optarg; break;
		case OPT_TU: o.tu = optarg; break;
		case OPT_REQUIRE: o.require = 1; break;
		case OPT_DEBUG_DIR: elfrec_set_debug_dir(optarg); break;
		case 'q': quiet = 1; break;
		case 'h': inspect_usage(stdout); return 0;
		default:
			return cli_usage();
		}
	}
	if (o.json + o.sites + o.units_only > 1)
		return cli_usage_error("--json, --sites and --units exclude each other");
	if (optind >= argc)
		return cli_usage_error("no FILE given");
	if (json && is_binary(json))
		return cli_usage_error("--json \"%s\": an object or archive, not the file the "
				       "document replaces (--json - prints it)", json);
	{
		const struct cli_output outs[] = { CLI_OUT_JSON(json), CLI_OUT_END };
		if (cli_check_outputs(outs) < 0)
			return PGBUILD_EXIT_ERROR;
	}
	json_writer_init(&jw, &out);
	json_writer_init(&fw, &files);
	if (o.json) {
		json_object_begin(&jw);
		json_key(&jw, "units");
		json_array_begin(&jw);
		json_array_begin(&fw);
	}
	for (int i = optind; i < argc; i++) {
		int r = inspect_file(&o, argv[i], o.json ? &jw : NULL, &fw, &t);
		if (r > rc)
			rc = r;
	}
	if (o.json) {
		json_array_end(&jw);
		json_array_end(&fw);
		json_key(&jw, "files");
		json_raw(&jw, files.buf);
		json_object_end(&jw);
		strbuf_addch(&out, '\n');
		if (write_result(json, out.buf, out.len) < 0 && rc < PGBUILD_EXIT_ERROR)
			rc = PGBUILD_EXIT_ERROR;
	} else if (!o.sites && t.units && !quiet) {
		printf("%ld units, %ld functions, %ld inlined call sites "
		       "(%ld at link time, %ld cross-file), %ld calls not inlined\n",
		       t.units, t.functions, t.sites, t.link_sites, t.cross_sites,
		       t.refused);
	}
	/* nothing shown is not a success */
	if (rc == 0 && o.tu && !t.units) {
		error("no translation unit \"%s\" in the records of %s%s", o.tu, argv[optind],
		      argc - optind > 1 ? " ..." : "");
		rc = PGBUILD_EXIT_FAIL;
	} else if (rc == 0 && o.function && !t.matched) {
		error("no function \"%s\" in the records of %s%s", o.function, argv[optind],
		      argc - optind > 1 ? " ..." : "");
		rc = PGBUILD_EXIT_FAIL;
	}
	strbuf_release(&files);
	strbuf_release(&out);
	return rc;
}
