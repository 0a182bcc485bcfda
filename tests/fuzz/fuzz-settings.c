/*
 * fuzz-settings.c - libFuzzer harness for pgoptcc.conf (wrapper/settings.c):
 * the parser, the upward search with its trust checks and bounded read,
 * and the resolution of the layers.
 *
 * The input is a pgoptcc.conf.  It is parsed from memory and, when it
 * parses, resolved with an environment layer and a CC-options layer; then
 * it is written as pgoptcc.conf at the top of a private directory tree and
 * found from a subdirectory, as a compile there would find it
 * (settings_find_conf: descriptors, owner and mode checks, sfs_read_fd),
 * and the text found is parsed again.
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wrapper/settings.h"

/* top and top/sub, made once; top is 0755 so the conf is trusted. */
static const char *scratch(char *sub, size_t n)
{
	static char dir[] = "/tmp/pgopt-fuzz-settings.XXXXXX";
	static int made;
	if (!made) {
		if (!mkdtemp(dir) || chmod(dir, 0755) < 0)
			abort();
		snprintf(sub, n, "%s/sub", dir);
		if (mkdir(sub, 0755) < 0)
			abort();
		made = 1;
	}
	snprintf(sub, n, "%s/sub", dir);
	return dir;
}

static void resolve(const struct settings_layer *conf, const char *conf_path, const char *cwd)
{
	struct settings_layer env, cc;
	struct settings s;
	struct strbuf err = STRBUF_INIT;

	settings_layer_init(&env);
	settings_layer_init(&cc);
	env.value[SETTING_PREFIX] = strdup("ccache ./wrap");
	cc.value[SETTING_LOGDIR] = strdup("log");
	cc.value[SETTING_UNCHECKED] = strdup("1");
	settings_resolve(&s, &env, conf, conf_path, &cc, cwd, &err);
	settings_release(&s);
	settings_layer_release(&env);
	settings_layer_release(&cc);
	strbuf_release(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct settings_layer l;
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	char sub[96], path[96], *found = NULL;
	const char *top = scratch(sub, sizeof(sub));
	int fd;

	settings_layer_init(&l);
	if (settings_conf_parse("/fuzz/pgoptcc.conf", (const char *)data, size, &l, &err) == 0)
		resolve(&l, "/fuzz/pgoptcc.conf", "/fuzz/sub");
	settings_layer_release(&l);
	strbuf_reset(&err);

	snprintf(path, sizeof(path), "%s/pgoptcc.conf", top);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size) || fchmod(fd, 0644) < 0)
		abort();
	close(fd);
	fd = open(sub, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		abort();
	if (settings_find_conf(fd, sub, &found, &text, &err) == 1) {
		settings_layer_init(&l);
		if (settings_conf_parse(found, text.buf, text.len, &l, &err) == 0)
			resolve(&l, found, sub);
		settings_layer_release(&l);
	}
	close(fd);
	free(found);
	strbuf_release(&err);
	strbuf_release(&text);
	return 0;
}
