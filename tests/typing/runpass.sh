#!/bin/sh
# scratch helper (not committed): run pass cases and diff
B=/work/wt-typing/target/release/spindle
cd /work/wt-typing/tests/typing/pass
for f in ${@:-*.sp}; do n=${f%.sp}; out=$(timeout 10 $B run $n.sp 2>/tmp/typ_err); rc=$?
 if [ "$out" != "$(cat $n.out)" ] || [ $rc != 0 ]; then echo "FAIL $n rc=$rc"; echo " got: $out"; echo " exp: $(cat $n.out)"; head -5 /tmp/typ_err; fi; done
