# Checks a sales file (`product,quantity,price` after a header line) and prints
# `lines total`; a line it cannot read is reported on standard error, status 1.
NR == 1 { next }
NF != 3 || $2 !~ /^[0-9]+$/ || $3 !~ /^[0-9]+([.][0-9]+)?$/ {
  printf "line %d: cannot read '%s'\n", NR, $0 > "/dev/stderr"
  bad = 1
  exit 1
}
{ n += 1; total += $2 * $3 }
END { if (!bad) printf "%d %.2f\n", n, total }
