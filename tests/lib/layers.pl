#!/usr/bin/perl
# tests/lib/layers.pl - the include graph of wrapper/ and pgbuild/ against
# the layer diagram of pgbuild/README.md (its "**Layers.**" paragraph: the
# first ```text block after it, lowest line first, directories named from
# the top of the repository, peers on one line).
#
#   perl tests/lib/layers.pl [TOP]     (TOP: the repository, default .)
#
# Prints one line per include that breaks the order and exits 1 when there
# is any, 0 when there is none (2: no diagram).  The rules:
#   - a file's directory is its first two path components (pgbuild/gate
#     for pgbuild/gate/expr.c, pgbuild/metric for pgbuild/metric/shim/x.c),
#     or one for files right in wrapper/ or pgbuild/; every directory with
#     sources must be in the diagram;
#   - an include "dir/.../x.h" names a file of the tree from its top; one
#     without a directory is a generated header (from $(O)/gen: a makefile
#     writes it) and must not exist beside the file;
#   - a directory includes its own headers and those of lower lines, never
#     of its own line (peers) or above;
#   - one of wrapper/ includes one of pgbuild/ (or the reverse) only below
#     the lowest line holding its own tree: pgbuild may use the libraries
#     under its base, never pgoptcc's own modules.
use strict;
use warnings;
use File::Find;

my $top = shift // '.';
chdir $top or die "$top: $!\n";

sub readme_levels {
	open my $h, '<', 'pgbuild/README.md' or die "pgbuild/README.md: $!\n";
	my ($seen, $in, $n, %level) = (0, 0, 0);
	while (<$h>) {
		if (!$seen) { $seen = 1 if /^\*\*Layers\.\*\*/; next }
		if (!$in) { $in = 1 if /^```text\s*$/; next }
		last if /^```/;
		my @dirs;
		for (split ' ') { last unless m{^(?:wrapper|pgbuild)(?:/[a-z0-9_-]+)?$}; push @dirs, $_ }
		next unless @dirs;
		for (@dirs) { die "pgbuild/README.md: $_ is twice in the layer diagram\n" if exists $level{$_}; $level{$_} = $n }
		$n++;
	}
	return \%level;
}

sub node { my @p = split m{/}, $_[0]; pop @p; return join '/', @p[0 .. ($#p < 1 ? $#p : 1)] }
sub tree { (split m{/}, $_[0])[0] }

my $level = readme_levels();
unless (%$level) { print "pgbuild/README.md: no layer diagram (a ```text block after **Layers.**)\n"; exit 2 }
my @files;
find({ no_chdir => 1, wanted => sub { push @files, $File::Find::name if /\.[ch]$/ && -f } }, 'wrapper', 'pgbuild');
my %gen;
for my $mk (glob('Makefile */*.mk */*/*.mk')) {
	open my $h, '<', $mk or next;
	while (<$h>) { $gen{$1} = 1 while m{\$\(O\)/gen/([A-Za-z0-9_.-]+)}g }
}
# the lowest line of each tree
my %lowest;
for my $d (keys %$level) {
	my $t = tree($d);
	$lowest{$t} = $level->{$d} if !defined $lowest{$t} || $level->{$d} < $lowest{$t};
}
my ($bad, %missing) = (0);
for my $f (sort @files) {
	my $from = node($f);
	unless (exists $level->{$from}) { $missing{$from} //= $f; next }
	open my $h, '<', $f or die "$f: $!\n";
	while (my $l = <$h>) {
		next unless $l =~ /^\s*#\s*include\s+"([^"]+)"/;
		my $inc = $1;
		if ($inc !~ m{/}) {
			my $dir = $f =~ s{/[^/]*$}{}r;
			if (-e "$dir/$inc") { print "$f:$.: \"$inc\" must name its directory from the top of the tree\n"; $bad++ }
			elsif (!$gen{$inc}) { print "$f:$.: \"$inc\" is no file of the tree and no makefile generates it\n"; $bad++ }
			next;
		}
		unless (-f $inc) { print "$f:$.: \"$inc\" names no file of the tree\n"; $bad++; next }
		my $to = node($inc);
		next if $to eq $from;
		unless (exists $level->{$to}) { $missing{$to} //= $inc; next }
		my ($lf, $lt) = ($level->{$from}, $level->{$to});
		my $why = $lt > $lf ? 'goes up' : $lt == $lf ? 'goes sideways (peers)' :
			  tree($from) ne tree($to) && $lt >= $lowest{tree($from)} ?
			  "reaches into " . tree($to) . "/ above " . tree($from) . "'s base" : '';
		next unless $why;
		print "$f:$.: $from includes $to ($inc): $why\n";
		$bad++;
	}
}
# the engines README.md calls libraries ("Called as a library, never
# spawned:" and their names in backquotes): no command line of theirs built
# outside cmd/
my @libs;
{
	open my $h, '<', 'pgbuild/README.md' or die "pgbuild/README.md: $!\n";
	local $/;
	my $t = <$h>;
	if ($t =~ /Called as a library, never spawned:([^.]*)\./) { @libs = $1 =~ /`pgbuild ([a-z-]+)`/g }
}
unless (@libs) { print "pgbuild/README.md: no \"Called as a library, never spawned:\" list\n"; $bad++ }
for my $f (sort grep { m{^pgbuild/} && !m{^pgbuild/cmd/} && /\.c$/ } @files) {
	open my $h, '<', $f or die "$f: $!\n";
	local $/;
	my $t = <$h>;
	while ($t =~ /pgbuild_self\(\)\s*,\s*"([a-z-]+)"/g) {
		my $cmd = $1;
		next unless grep { $_ eq $cmd } @libs;
		my $line = 1 + (() = substr($t, 0, pos($t)) =~ /\n/g);
		print "$f:$line: spawns `pgbuild $cmd`, which is called as a library (regress_run_child, stage_run_fn)\n";
		$bad++;
	}
}
my %has = map { node($_) => 1 } @files;
for (sort grep { !$has{$_} } keys %$level) { print "pgbuild/README.md: $_ is in the layer diagram but holds no sources\n"; $bad++ }
for (sort keys %missing) { print "$missing{$_}: directory $_ is not in pgbuild/README.md's layer diagram\n"; $bad++ }
exit($bad ? 1 : 0);
