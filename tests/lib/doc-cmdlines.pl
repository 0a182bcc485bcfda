#!/usr/bin/perl
# tests/lib/doc-cmdlines.pl - the one reader of `pgbuild CMD ...` command
# lines in Markdown documents, for the suites that hold the docs to the
# program (t/92 every user document, t/97 README.md and examples/*.md).
#
#   perl doc-cmdlines.pl HELPDIR FILE.md...
#
# HELPDIR holds one file per pgbuild command, named after it, listing that
# command's options one a line (tests/lib/help.sh's help_opts of `pgbuild
# CMD --help`).  Command lines are read from code blocks (with \
# continuations) and from `code` spans (which may run over lines).  Prints
# one line per problem, "FILE:LINE: pgbuild CMD: no option --x" or "...: no
# such command"; nothing when every command and option is real.
#
#   perl doc-cmdlines.pl --run PGBUILD SCRATCH FILE.md...
#
# Runs every pgbuild command line of the ```sh blocks (the commands a
# reader is told to run, words split as the shell does, comments and
# redirections left out) with today's PGBUILD, each in a new empty
# directory under SCRATCH, so that its option checks run and nothing else
# can: every absolute path is moved under SCRATCH/root, HOME, TMPDIR and
# PGOPT_CACHE_DIR are under SCRATCH and PATH is an empty directory (no
# compiler, no download); gate's --baseline and --candidate are fake
# installs whose bin/postgres exits 1, so that its checks of the family of
# tests (which follow the install check) run, and a gate that passes them
# fails at its first run.  Prints one line per command refused as used
# ("FILE:LINE: pgbuild CMD: " and its first error: a usage error, the ones
# that end with `Try "pgbuild ... --help"`), or still running after 30 s;
# an error of a missing input (every input is missing here) means the
# options parsed.  The last line is "ran N", the command lines run.
use strict;
use warnings;

if (@ARGV && $ARGV[0] eq "--run") {
	shift;
	run_all(@ARGV);
	exit 0;
}

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

# The ```sh blocks' command lines of md: [line, text] with \ continuations joined.
sub sh_lines {
	my ($md) = @_;
	open my $h, "<", $md or die "$md: $!\n";
	my @l = <$h>;
	my ($block, @out) = (0);
	for (my $i = 0; $i < @l; $i++) {
		my ($ln, $t) = ($i + 1, $l[$i]);
		if ($t =~ /^```/) { $block = $block ? 0 : $t =~ /^```sh\s*$/ ? 1 : 2; next }
		next unless $block == 1;
		while ($t =~ /\\\s*$/ && $i + 1 < @l) { $t =~ s/\\\s*$/ /; $t .= $l[++$i] }
		push @out, [$ln, $t];
	}
	return @out;
}

# Words and operators of one shell line, as the shell splits them: quotes
# removed, $HOME and ${HOME} expanded to home; an operator is a ref.
sub shell_words {
	my ($t, $home) = @_;
	my (@w, $cur);
	my $flush = sub { push @w, $cur if defined $cur; undef $cur };
	while (length $t) {
		if ($t =~ s/^\s+//) { $flush->(); next }
		if (!defined $cur && $t =~ /^#/) { last }
		if ($t =~ s/^(&&|\|\||[;|&(){}<>])//) { $flush->(); push @w, \"$1"; next }
		if ($t =~ s/^'([^']*)'//) { $cur .= $1; next }
		if ($t =~ s/^"((?:[^"\\]|\\.)*)"//) {
			(my $q = $1) =~ s/\$\{?HOME\}?/$home/g; $q =~ s/\\(.)/$1/g; $cur .= $q; next
		}
		if ($t =~ s/^\\(.)//s) { $cur .= $1; next }
		if ($t =~ s/^\$\{?HOME\}?//) { $cur .= $home; next }
		# a word's plain characters, else one character (a lone quote)
		$t =~ s/^([^\s'"\\;|&(){}<>\$]+|.)//s;
		$cur .= $1;
	}
	$flush->();
	return @w;
}

# The pgbuild command lines of words: each the argv after "pgbuild".
sub pgbuild_argvs {
	my @w = @_;
	my (@out, @seg);
	push @w, \";";
	for my $x (@w) {
		if (ref $x) {
			my $op = $$x;
			if ($op eq "<" || $op eq ">") { push @seg, \"redirect"; next }
			shift @seg while @seg && !ref $seg[0] && $seg[0] =~ /^[A-Za-z_][A-Za-z0-9_]*=/;
			push @out, [grep { !ref } @seg[1 .. $#seg]]
				if @seg && !ref $seg[0] && $seg[0] =~ m{(?:^|/)pgbuild$};
			@seg = ();
			next;
		}
		if (@seg && ref $seg[-1]) { pop @seg; next }   # a redirection's file
		push @seg, $x;
	}
	return @out;
}

# A fake install at dir: bin/postgres that exits 1.
sub fake_install {
	my ($dir) = @_;
	system("mkdir", "-p", "$dir/bin") == 0 or die "mkdir $dir/bin\n";
	open my $f, ">", "$dir/bin/postgres" or die "$dir/bin/postgres: $!\n";
	print $f "#!/bin/sh\nexit 1\n";
	close $f;
	chmod 0755, "$dir/bin/postgres";
}

sub run_all {
	my ($pgbuild, $scratch, @md) = @_;
	my $n = 0;
	for my $d ("home", "tmp", "cache", "nobin", "root") {
		mkdir "$scratch/$d" or -d "$scratch/$d" or die "$scratch/$d: $!\n";
	}
	for my $md (@md) {
		for my $l (sh_lines($md)) {
			my ($ln, $text) = @$l;
			for my $argv (pgbuild_argvs(shell_words($text, "$scratch/home"))) {
				my @a = map { m{^(?:--[a-z][a-z0-9-]*=)?\Q$scratch\E/} ? $_ :
					s{^(--[a-z][a-z0-9-]*=)?/}{($1 // "") . "$scratch/root/"}er } @$argv;
				my $dir = "$scratch/run" . ++$n;
				mkdir $dir or die "$dir: $!\n";
				if (@a && $a[0] eq "gate") {
					for my $i (1 .. $#a) {
						my $p = $a[$i] =~ /^--(?:baseline|candidate)=(.+)/ ? $1 :
							$a[$i - 1] =~ /^--(?:baseline|candidate)$/ ? $a[$i] : next;
						fake_install($p =~ m{^/} ? $p : "$dir/$p");
					}
				}
				my $err = run_one($pgbuild, $scratch, $dir, @a);
				print "$md:$ln: pgbuild ", ($a[0] // ""), ": $err\n" if defined $err;
			}
		}
	}
	print "ran $n\n";
}

# Run pgbuild @a in dir; the refusal (its first error line) or a
# timeout, else undef.
sub run_one {
	my ($pgbuild, $scratch, $dir, @a) = @_;
	my $pid = fork // die "fork: $!\n";
	if (!$pid) {
		setpgrp(0, 0);
		chdir $dir or die "$dir: $!\n";
		%ENV = (HOME => "$scratch/home", TMPDIR => "$scratch/tmp", PATH => "$scratch/nobin",
			PGOPT_CACHE_DIR => "$scratch/cache", LC_ALL => "C");
		open STDIN, "<", "/dev/null";
		open STDOUT, ">", "$dir/.out";
		open STDERR, ">", "$dir/.err";
		exec { $pgbuild } "pgbuild", @a or die "$pgbuild: $!\n";
	}
	my $timed_out = 0;
	local $SIG{ALRM} = sub { $timed_out = 1; kill "KILL", -$pid };
	alarm 30;
	1 while waitpid($pid, 0) < 0 && $!{EINTR};
	alarm 0;
	return "still running after 30 s (a command here must stop at its checks)" if $timed_out;
	open my $e, "<", "$dir/.err" or return "no stderr: $!";
	my $text = do { local $/; <$e> } // "";
	return undef unless $text =~ /^Try "pgbuild[^"]*--help" for more information\.$/m;
	my ($first) = $text =~ /^(pgbuild: error: .*)$/m;
	return $first // "usage error";
}
