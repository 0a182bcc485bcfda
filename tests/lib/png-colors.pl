#!/usr/bin/perl
# png-colors.pl - count the pixels of a PNG (8-bit RGB/RGBA, non-interlaced,
# as Chromium's --screenshot writes) that are not near-white, and those near
# each given colour.  Used to check that a rendered report is not blank and
# that its plots (drawn in known colours) actually appeared.
#
#   png-colors.pl FILE [#rrggbb ...]
#   -> "width W height H nonwhite N #rrggbb N ..."
use strict;
use warnings;
use Compress::Zlib;

my ($file, @want) = @ARGV;
open(my $fh, '<:raw', $file) or die "png-colors: $file: $!\n";
local $/;
my $png = <$fh>;
close $fh;
substr($png, 0, 8) eq "\x89PNG\r\n\x1a\n" or die "png-colors: $file: not a PNG\n";
my ($w, $h, $depth, $ctype, $interlace, $idat) = (0, 0, 0, 0, 0, '');
my $pos = 8;
while ($pos < length $png) {
	my ($len, $type) = unpack('N a4', substr($png, $pos, 8));
	my $data = substr($png, $pos + 8, $len);
	if ($type eq 'IHDR') {
		($w, $h, $depth, $ctype, undef, undef, $interlace) = unpack('N N C C C C C', $data);
	} elsif ($type eq 'IDAT') {
		$idat .= $data;
	}
	$pos += 12 + $len;
}
die "png-colors: unsupported PNG (depth $depth, colour type $ctype, interlace $interlace)\n"
	unless $depth == 8 && ($ctype == 2 || $ctype == 6) && !$interlace;
my $bpp = $ctype == 6 ? 4 : 3;
my $raw = uncompress($idat) // die "png-colors: bad image data\n";
my $stride = $w * $bpp;
my @prev = (0) x $stride;
my @targets = map { [ map { hex } /^#?(..)(..)(..)$/ ] } @want;
my @count = (0) x @targets;
my $nonwhite = 0;
for my $y (0 .. $h - 1) {
	my $off = $y * ($stride + 1);
	my $filter = ord substr($raw, $off, 1);
	my @cur = unpack('C*', substr($raw, $off + 1, $stride));
	for my $i (0 .. $stride - 1) {
		my $a = $i >= $bpp ? $cur[$i - $bpp] : 0;
		my $b = $prev[$i];
		my $c = $i >= $bpp ? $prev[$i - $bpp] : 0;
		my $x = $cur[$i];
		if ($filter == 1) { $x += $a }
		elsif ($filter == 2) { $x += $b }
		elsif ($filter == 3) { $x += int(($a + $b) / 2) }
		elsif ($filter == 4) {
			my $p = $a + $b - $c;
			my ($pa, $pb, $pc) = (abs($p - $a), abs($p - $b), abs($p - $c));
			$x += ($pa <= $pb && $pa <= $pc) ? $a : ($pb <= $pc) ? $b : $c;
		}
		$cur[$i] = $x & 255;
	}
	for (my $i = 0; $i < $stride; $i += $bpp) {
		my ($r, $g, $bl) = @cur[$i .. $i + 2];
		$nonwhite++ if $r < 240 || $g < 240 || $bl < 240;
		for my $t (0 .. $#targets) {
			my $tc = $targets[$t];
			$count[$t]++ if abs($r - $tc->[0]) < 24 && abs($g - $tc->[1]) < 24 && abs($bl - $tc->[2]) < 24;
		}
	}
	@prev = @cur;
}
print "width $w height $h nonwhite $nonwhite";
print " $want[$_] $count[$_]" for 0 .. $#want;
print "\n";
