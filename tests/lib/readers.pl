#!/usr/bin/perl
# tests/lib/readers.pl - every file pgoptcc, pgbuild and the plugin read
# goes through the one bounded reader (wrapper/common/safefs.h: sfs_read,
# sfs_read_fd, sfs_open_input), which opens O_NOFOLLOW | O_NONBLOCK,
# refuses anything but a regular file and caps the size per kind.
#
#   perl tests/lib/readers.pl [TOP]     (TOP: the repository, default .)
#
# Prints one line per call that opens or reads a file some other way
# (file:line: the call) and exits 1 when there is any, 0 when there is
# none.  Looked for in wrapper/, pgbuild/ and plugin/ (comments and string
# literals left out): fopen/fdopen/freopen/popen for reading, open/openat
# whose flags read (O_RDONLY, O_RDWR, or no access mode) unless they open
# a directory (O_DIRECTORY, O_PATH) or only create (O_CREAT|O_EXCL),
# fread, fgets, getline, getdelim, strbuf_getline, mmap, and the removed
# strbuf_read_file.  In wrapper/ and pgbuild/ a tree is walked only by
# the one walker, sfs_walk_tree (wrapper/common/safefs.h: below a
# descriptor, no link entered, SFS_MAX_DEPTH levels): a call of nftw, ftw
# or fts_open there is named too, with the walker to use ("file:line: the
# call: ...").  The only places allowed to read otherwise, each with its
# reason:
my %allowed = (
	# the reader itself, and the tree copy of the same module (its source
	# is a tree nobody else can change: sfs_tree_foreign)
	'wrapper/common/safefs.c' => 'the bounded reader',
	'wrapper/common/safefs-tree.c' => 'sfs_link_tree copies the build\'s own files',
	# GCC's plugin runs inside cc1 and links nothing of ours: its hot/cold
	# list reader applies the same rules (O_NOFOLLOW | O_NONBLOCK, a
	# regular file, 16 MiB) by itself
	'plugin/pgopt.cc' => 'the plugin: same rules, its own code',
);
# Single calls allowed, by file and what they open: a lock file is never
# read, only locked (flock); /dev/null is a child's empty stdin.
my @allowed_calls = (
	[ 'pgbuild/build/regress.c', qr/"pgopt-regress\.lock"/ ],
	[ 'pgbuild/cluster/template.c', qr/"\.lock"/ ],
	[ 'pgbuild/build/source.c', qr/^open\(path, O_RDWR \| O_CREAT \| O_NOFOLLOW/ ],   # src.lock
	[ 'pgbuild/tune/tuner.c', qr/^open\(path, O_RDWR \| O_CREAT \| O_NOFOLLOW/ ],    # --lock FILE
	[ 'wrapper/common/run-command.c', qr/^open\("\/dev\/null", O_RDWR\)/ ],
);
use strict;
use warnings;
use File::Find;

my $top = shift // '.';
chdir $top or die "$top: $!\n";
my @files;
find({ no_chdir => 1, wanted => sub { push @files, $File::Find::name if /\.(?:c|h|cc)$/ && -f } },
     'wrapper', 'pgbuild', 'plugin');

# The text without comments and string contents (same length, lines kept).
sub strip {
	my $s = shift;
	$s =~ s{/\*.*?\*/}{ my $c = $&; $c =~ s/[^\n]/ /g; $c }gse;
	$s =~ s{//[^\n]*}{ ' ' x length $& }ge;
	return $s;
}

# The text of the call starting at offset $at (its parentheses balanced).
sub call_at {
	my ($s, $at) = @_;
	my ($depth, $i) = (0, index($s, '(', $at));
	for (; $i < length $s; $i++) {
		my $c = substr($s, $i, 1);
		$depth++ if $c eq '(';
		if ($c eq ')' && --$depth == 0) { return substr($s, $at, $i - $at + 1) }
	}
	return substr($s, $at);
}

my $bad = 0;
for my $f (sort @files) {
	open my $h, '<', $f or die "$f: $!\n";
	my $raw = do { local $/; <$h> };
	my $s = strip($raw);
	# a second tree walker (the plugin links nothing of ours: not there)
	while ($f =~ m{^(?:wrapper|pgbuild)/} && $s =~ /\b(?:nftw|ftw|fts_open)\s*\(/g) {
		my $at = $-[0];
		my $before = substr($s, 0, $at);
		next if $before =~ /(?:->|\.)\s*$/;      # a member of that name
		my $line = 1 + ($before =~ tr/\n//);
		(my $one = call_at($raw, $at)) =~ s/\s+/ /g;
		print "$f:$line: $one: walk trees with the one walker, sfs_walk_tree " .
		      "(wrapper/common/safefs.h), bounded by SFS_MAX_DEPTH\n";
		$bad++;
	}
	next if $allowed{$f};
	while ($s =~ /\b(fopen|fdopen|freopen|popen|openat|open|fread|fgets|getline|getdelim|strbuf_getline|strbuf_read_file|mmap)\s*\(/g) {
		my ($fn, $at) = ($1, $-[0]);
		# a definition or declaration of our own strbuf_getline is not a use
		my $before = substr($s, 0, $at);
		next if $fn eq 'strbuf_getline' && $before =~ /\b(?:int|long)\s*$/;
		next if $before =~ /(?:->|\.)\s*$/;      # a member called open
		my $call = call_at($raw, $at);
		my $line = 1 + ($before =~ tr/\n//);
		if ($fn =~ /^(?:open|openat)$/) {
			next if $call =~ /\bO_(?:DIRECTORY|PATH)\b/;
			next if $call =~ /\bO_WRONLY\b/;
			next if $call =~ /\bO_CREAT\b/ && $call =~ /\bO_EXCL\b/;
			next if $call =~ /\b[A-Z_]*FLAGS\b/ && $raw =~ /#define\s+[A-Z_]*FLAGS\s*\([^)]*O_WRONLY/;
		}
		if ($fn =~ /^(?:fopen|fdopen|freopen|popen)$/) {
			next if $call =~ /,\s*"[wa]b?"\s*\)$/;
		}
		next if grep { $_->[0] eq $f && $call =~ $_->[1] } @allowed_calls;
		(my $one = $call) =~ s/\s+/ /g;
		print "$f:$line: $one\n";
		$bad++;
	}
}
exit($bad ? 1 : 0);
