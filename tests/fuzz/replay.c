/*
 * replay.c - run a fuzz harness over files without libFuzzer.
 *
 *     fuzz-replay-json FILE|DIR...
 *
 * Links with one tests/fuzz/fuzz-*.c harness in the ordinary (gcc, or
 * SANITIZE=...) build, so the committed corpora and every crash ever found
 * are replayed by `make check` (tests/t/80-fuzz-replay.t).  Prints the
 * number of inputs run; a crash kills the process as it would the fuzzer.
 */
#include <fcntl.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "wrapper/common/safefs.h"
#include "wrapper/common/strbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	char *copy;
	if (sfs_read(AT_FDCWD, path, SFS_IN_BINARY, 0, &sb, NULL) < 0) {
		fprintf(stderr, "replay: error: cannot read %s\n", path);
		exit(2);
	}
	/* an exact-size heap copy, so ASan sees reads past the end */
	copy = malloc(sb.len ? sb.len : 1);
	if (!copy)
		abort();
	memcpy(copy, sb.buf, sb.len);
	LLVMFuzzerTestOneInput((const uint8_t *)copy, sb.len);
	free(copy);
	strbuf_release(&sb);
	return 1;
}

int main(int argc, char **argv)
{
	long n = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) < 0) {
			fprintf(stderr, "replay: error: cannot stat %s\n", argv[i]);
			return 2;
		}
		if (S_ISDIR(st.st_mode)) {
			struct dirent **ents;
			int m = scandir(argv[i], &ents, NULL, alphasort);
			if (m < 0) {
				fprintf(stderr, "replay: error: cannot list %s\n", argv[i]);
				return 2;
			}
			for (int j = 0; j < m; j++) {
				if (ents[j]->d_name[0] != '.') {
					char *p;
					if (asprintf(&p, "%s/%s", argv[i], ents[j]->d_name) < 0)
						abort();
					n += run_file(p);
					free(p);
				}
				free(ents[j]);
			}
			free(ents);
		} else {
			n += run_file(argv[i]);
		}
	}
	printf("replayed %ld inputs\n", n);
	return 0;
}
