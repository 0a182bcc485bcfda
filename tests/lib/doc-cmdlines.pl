#!/usr/bin/perl
# tests/lib/doc-cmdlines.pl - the one reader of `pgbuild CMD ...` command
# lines in Markdown documents, for the suites that hold the docs to the
# program (t/92 every user document, t/97 README.md).
#
#   perl doc-cmdlines.pl HELPDIR FILE.md...
#
# HELPDIR holds one file per pgbuild command, named after it, listing that
# command's options one a line (tests/lib/help.sh's help_opts of `pgbuild
# CMD --help`).  Command lines are read from code blocks (with \
# continuations) and from `code` spans (which may run over lines).  Prints
# one line per problem, "FILE:LINE: pgbuild CMD: no option --x" or "...: no
# such command"; nothing when every command and option is real.
use strict;
use warnings;

my ($hd, @md) = @ARGV;
my (%opts);
opendir my $d, $hd or die "$hd: $!\n";
for my $cmd (grep { !/^\./ } readdir $d) {
	open my $h, "<", "$hd/$cmd" or die "$hd/$cmd: $!\n";
	chomp(my @o = <$h>);
	$opts{$cmd} = { map { $_ => 1 } @o };
}
for my $md (@md) {
	open my $h, "<", $md or die "$md: $!\n";
	my @l = <$h>;
	my $block = 0;
	for (my $i = 0; $i < @l; $i++) {
		my $ln = $i + 1; my $t = $l[$i]; my @texts;
		if ($t =~ /^```/) { $block = !$block; next }
		if ($block) { while ($t =~ /\\\s*$/ && $i + 1 < @l) { $t =~ s/\\\s*$/ /; $t .= $l[++$i] } push @texts, $t }
		else { while (($t =~ tr/`//) % 2 && $i + 1 < @l) { $t .= $l[++$i] } push @texts, $1 while $t =~ /`([^`]*)`/g }
		for my $x (@texts) {
			while ($x =~ /(?:^|[\s;(|&\$])pgbuild\s+([a-z][a-z-]*)((?:[ \t\n]+[^\s;|&)#`]+)*)/g) {
				my ($cmd, $args) = ($1, $2);
				next if $cmd eq "help";
				unless ($opts{$cmd}) { print "$md:$ln: pgbuild $cmd: no such command\n"; next }
				$args =~ s/\x27[^\x27]*\x27|"[^"]*"/Q/g;
				for (split " ", $args) {
					next unless /^(--[a-z][a-z0-9-]*|-[A-Za-z])(?:=.*)?$/;
					print "$md:$ln: pgbuild $cmd: no option $1\n" unless $opts{$cmd}{$1} || $1 eq "--help";
				}
			}
		}
	}
}
