# TAP::Harness::Skips - prove's harness, ending with the skipped checks.
#
# prove shows a file with skipped checks as plain "ok" and counts the skips
# into its total, so a check that could not run here looks like one that
# passed.  This harness (prove -Itests/lib --harness TAP::Harness::Skips,
# as make check-tap and check-pg run it) collects every "ok N # SKIP reason"
# and every "1..0 # SKIP reason" while the files run, and after prove's own
# summary prints
#
#     skipped: 5 checks in 1 file, 1 file skipped whole
#       tests/t/12-wrapper-log.t: 5 checks (19-23): ccache not installed ...
#       tests/t/40-bench-options.t: whole file: no PostgreSQL in ...
#
# or "skipped: none".  Nothing else changes: the same output, the same exit.
package TAP::Harness::Skips;
use strict;
use warnings;
use parent 'TAP::Harness';

# file => { whole => reason, checks => [[number, reason], ...] }
my %skipped;

sub _watch {
	my ($parser, $file) = @_;
	$parser->callback(plan => sub {
		my $plan = shift;
		$skipped{$file}{whole} = $plan->explanation // '' if $plan->directive eq 'SKIP';
	});
	$parser->callback(test => sub {
		my $t = shift;
		push @{$skipped{$file}{checks}}, [$t->number, $t->explanation // ''] if $t->has_skip;
	});
}

# "19-23" for 19 20 21 22 23, "3, 7" for 3 7
sub _ranges {
	my @n = @_;
	my @out;
	while (@n) {
		my ($lo, $hi) = (shift @n) x 2;
		$hi = shift @n while @n && $n[0] == $hi + 1;
		push @out, $lo == $hi ? $lo : "$lo-$hi";
	}
	return join ', ', @out;
}

sub _summary {
	my ($checks, $files, $whole, @lines) = (0, 0, 0);
	for my $file (sort keys %skipped) {
		my $s = $skipped{$file};
		if (defined $s->{whole}) {
			$whole++;
			push @lines, "  $file: whole file: $s->{whole}";
			next;
		}
		next unless $s->{checks};
		my %by;
		push @{$by{$_->[1]}}, $_->[0] for @{$s->{checks}};
		$files++;
		$checks += @{$s->{checks}};
		for my $why (sort { $by{$a}[0] <=> $by{$b}[0] } keys %by) {
			my $n = @{$by{$why}};
			push @lines, sprintf "  %s: %d check%s (%s): %s", $file, $n, $n == 1 ? '' : 's',
				_ranges(@{$by{$why}}), $why;
		}
	}
	return "skipped: none\n" unless $checks || $whole;
	return sprintf("skipped: %d check%s in %d file%s, %d file%s skipped whole\n", $checks,
		$checks == 1 ? '' : 's', $files, $files == 1 ? '' : 's', $whole,
		$whole == 1 ? '' : 's') . join('', map { "$_\n" } @lines);
}

sub runtests {
	my ($self, @tests) = @_;
	$self->callback(made_parser => sub {
		my ($parser, $job) = @_;
		_watch($parser, $job->[1] // $job->[0]);
	});
	my $aggregate = $self->SUPER::runtests(@tests);
	print _summary();
	return $aggregate;
}

1;
