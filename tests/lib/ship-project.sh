# tests/lib/ship-project.sh - the small autoconf project the packaging
# suites (tests/t/33 Debian, tests/t/34 RPM) build into packages: a program
# (ship, linking its static library with -L. -lship), a loadable module
# (ship.so) and the static library (libship.a), compiled and linked in
# separate steps as PostgreSQL and PGXS do, and a makefile fragment that
# records the compiler (Makefile.global, as PGXS's).  Installed as
# $(bindir)/ship and $(prefix)/lib/pgopt-ship/{ship.so,libship.a,Makefile.global};
# the module with mode 755 (rpm's find-debuginfo strips only executable files).
#
#   ship_project DIR     write the project into DIR and run autoconf there
ship_project() {
	local s=$1
	mkdir -p "$s/src" || return 1
	cat > "$s/configure.ac" <<'AC'
AC_INIT([pgopt-ship], [1.0])
AC_CONFIG_SRCDIR([src/lib.c])
AC_PROG_CC
AC_CONFIG_FILES([Makefile Makefile.global])
AC_OUTPUT
AC
	printf 'CC = @CC@\n' > "$s/Makefile.global.in"
	cat > "$s/Makefile.in" <<'MK'
prefix = @prefix@
exec_prefix = @exec_prefix@
bindir = @bindir@
CC = @CC@
CFLAGS = @CFLAGS@
CPPFLAGS = @CPPFLAGS@
LDFLAGS = @LDFLAGS@
all: ship ship.so libship.a
ship: src/main.o libship.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ src/main.o -L. -lship
ship.so: src/mod.o
	$(CC) $(CFLAGS) -shared $(LDFLAGS) -o $@ src/mod.o
libship.a: src/lib.o
	ar rcs $@ src/lib.o
src/%.o: src/%.c
	$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC -c -o $@ $<
install: all
	install -d $(DESTDIR)$(bindir) $(DESTDIR)$(prefix)/lib/pgopt-ship
	install -m 755 ship $(DESTDIR)$(bindir)/
	install -m 755 ship.so $(DESTDIR)$(prefix)/lib/pgopt-ship/
	install -m 644 libship.a Makefile.global $(DESTDIR)$(prefix)/lib/pgopt-ship/
clean:
	rm -f ship ship.so libship.a src/*.o
MK
	printf 'int lib_twice(int x) { return 2 * x; }\n' > "$s/src/lib.c"
	printf 'int lib_twice(int);\nint main(void) { return lib_twice(2) == 4 ? 0 : 1; }\n' > "$s/src/main.c"
	printf 'int mod_three(void) { return 3; }\n' > "$s/src/mod.c"
	(cd "$s" && autoconf && rm -rf autom4te.cache)
}
