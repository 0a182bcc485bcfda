/*
 * test-common-sha256.c - the wrapper's SHA-256 against FIPS 180-4's examples and
 * sha256sum of longer inputs fed in uneven pieces.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "wrapper/common/sha256.h"

#define X10 "xxxxxxxxxx"
#define X55 X10 X10 X10 X10 X10 "xxxxx"

static void hex_of(const char *s, size_t len, size_t piece, char *hex)
{
	struct sha256 c;
	sha256_init(&c);
	for (size_t i = 0; i < len; i += piece)
		sha256_update(&c, s + i, len - i < piece ? len - i : piece);
	sha256_final_hex(&c, hex);
}

static void test_vectors(void **state)
{
	static const struct { const char *in, *want; } cases[] = {
		{ "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
		{ "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
		/* sha256sum, lengths around the padding boundary */
		{ "work\nlocal_hot\n",
		  "0a08af94a2ec297fe5d9ee84c79f10da74feba81e0306a123f7704927f11fce1" },
		{ X55, "d5e285683cd4efc02d021a5c62014694958901005d6f71e89e0989fac77e4072" },
		{ X55 "x", "04c26261370ee7541549d16dee320c723e3fd14671e66a099afe0a377c16888e" },
		{ X55 "xxxxxxxx", "75220b47218278e656f2013bb8f0c455a25eaf01e86c64924e9d48d89776d6f2" },
		{ X55 "xxxxxxxxx", "7ce100971f64e7001e8fe5a51973ecdfe1ced42befe7ee8d5fd6219506b5393c" },
		{ X55 "xxxxxxxxxx", "9537c5fdf120482f7d58d25e9ed583f52c02b4e304ea814db1633ad565aed7e9" },
	};
	char hex[SHA256_HEX_SIZE];
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (size_t piece = 1; piece <= 64; piece *= 4) {
			hex_of(cases[i].in, strlen(cases[i].in), piece, hex);
			assert_string_equal(hex, cases[i].want);
		}
	}
}

static void test_million_a(void **state)
{
	static char a[1000];
	struct sha256 c;
	char hex[SHA256_HEX_SIZE];
	(void)state;
	memset(a, 'a', sizeof(a));
	sha256_init(&c);
	for (int i = 0; i < 1000; i++)
		sha256_update(&c, a, sizeof(a));
	sha256_final_hex(&c, hex);
	assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectors),
		cmocka_unit_test(test_million_a),
	};
	return cmocka_run_group_tests_name("sha256", tests, NULL, NULL);
}
