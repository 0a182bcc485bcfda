/* explain-callgrind-tiny.c - the program of the explain-callgrind-tiny*.out fixtures:
 * main calls mid once, mid calls leaf N times (N = argv[1]). */
#include <stdlib.h>
__attribute__((noinline)) static int leaf(int x) { return x * 3 + 1; }
__attribute__((noinline)) static int mid(int n) { int s = 0; for (int i = 0; i < n; i++) s += leaf(i); return s; }
int main(int argc, char **argv) { int n = argc > 1 ? atoi(argv[1]) : 10; return mid(n) & 1; }
