#!/usr/bin/perl
# plugin-oracle.pl - compare the inlined call sites pgopt.so recorded with
# the inlining decisions GCC itself reports, exactly, both ways.
#
#   plugin-oracle.pl INSPECT_JSON STAGE_RE OPTINFO [IPA_INLINE_DUMP]
#
# INSPECT_JSON is `pgbuild inspect --json -` of the object or executable; only
# units whose stage matches STAGE_RE count (e.g. ^compile$, ^ltrans$).
# GCC's side is a list of decisions:
#   - every "optimized: Inlin(ing|ed) X/N into Y/M" line of
#     -fopt-info-inline-optimized=OPTINFO (with the call's FILE:LINE:COL,
#     or none: at an LTO link WPA has no statements, and GCC's own call to
#     a .part clone has no location);
#   - every "Inlining X/N size S." + " Called once from Y/M K insns." pair
#     of -fdump-ipa-inline (GCC's inliner of functions called once, or
#     whose out-of-line copy goes away, writes those only to the dump).
# A recorded site matches a decision when the callee is the same, the call
# location is the same (when GCC gives one), and the caller GCC names (clone
# suffix dropped) is the function holding the record or is on the site's
# inline chain.  The check passes when every recorded site matches some
# decision and every decision matches some recorded site.
# Prints one summary line; on a mismatch the unmatched sites and decisions,
# and exits 1.
use strict;
use warnings;
use JSON::PP;

my ($json_file, $stage_re, $optinfo, $dump) = @ARGV;
die "usage: plugin-oracle.pl INSPECT_JSON STAGE_RE OPTINFO [DUMP]\n"
	unless defined $optinfo;

sub base { my $n = shift; $n =~ s/\..*//; return $n; }

my $doc = do { local $/; open(my $fh, '<', $json_file) or die "$json_file: $!\n"; decode_json(<$fh>) };
my @sites;
for my $u (@{$doc->{units}}) {
	next unless ($u->{stage} // '') =~ /$stage_re/;
	for my $f (@{$u->{functions}}) {
		for my $s (@{$f->{inlined} // []}) {
			my $file = $s->{file} // $f->{file};
			my $loc = $s->{line} ? "$file:$s->{line}:$s->{col}" : '?';
			my %holders = map { base($_) => 1 } ($f->{name}, @{$s->{chain} // []});
			push @sites, { loc => $loc, callee => $s->{callee}, holders => \%holders,
				       text => "$loc $s->{callee} in $f->{name}" .
					       ($s->{chain} ? " via " . join('>', @{$s->{chain}}) : '') };
		}
	}
}

my @decisions;
open(my $oi, '<', $optinfo) or die "$optinfo: $!\n";
while (<$oi>) {
	next unless m{^(?:(.+:\d+:\d+): )?optimized: +Inlin(?:ing|ed) (\S+)/\d+ into (\S+)/\d+};
	push @decisions, { loc => $1 // '?', callee => $2, caller => $3, how => 'fopt-info' };
}
close($oi);
if (defined $dump) {
	open(my $d, '<', $dump) or die "$dump: $!\n";
	my $callee;
	while (<$d>) {
		if (m{^Inlining (\S+)/\d+ size -?\d+\.$}) {
			$callee = $1;
		} elsif (defined $callee && m{^ Called once from (\S+)/\d+ }) {
			push @decisions, { loc => '?', callee => $callee, caller => $1, how => 'called-once' };
			undef $callee;
		} else {
			undef $callee;
		}
	}
	close($d);
}

my (%site_hit, %dec_hit);
for my $i (0 .. $#decisions) {
	my $d = $decisions[$i];
	for my $k (0 .. $#sites) {
		my $s = $sites[$k];
		next unless $s->{callee} eq $d->{callee} && $s->{holders}{base($d->{caller})};
		next unless $d->{loc} eq '?' || $d->{loc} eq $s->{loc};
		$site_hit{$k} = 1;
		$dec_hit{$i} = 1;
	}
}
my @extra = grep { !$site_hit{$_} } 0 .. $#sites;
my @missing = grep { !$dec_hit{$_} } 0 .. $#decisions;
my $once = grep { $_->{how} eq 'called-once' } @decisions;
my $reported = @decisions - $once;
printf "%d recorded sites, %d decisions (%d -fopt-info, %d called-once)\n",
	scalar @sites, scalar @decisions, $reported, $once;
print "recorded, but no GCC decision: $sites[$_]{text}\n" for @extra;
printf "GCC decision not recorded: %s %s into %s (%s)\n",
	@{$decisions[$_]}{qw(loc callee caller how)} for @missing;
exit(@sites && !@extra && !@missing ? 0 : 1);
