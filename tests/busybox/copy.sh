# cp -a, mv, rm -r on a known tree, and what is left.
mkdir -p src/x/y && echo one > src/x/f && echo two > src/x/y/g && ln -s x/f src/lf && chmod 640 src/x/f
touch -d '2001-02-03 04:05:06' src/x/f
cp -a src dst
echo "-- copy"; find dst | sort
stat -c "%n %a %Y %F" dst/x/f; stat -c "%n %a %F" dst/x/y/g
cmp src/x/f dst/x/f && echo same
mv dst/x/f dst/x/f2 && mv dst/x/y dst/z && mv dst/lf dst/x/
echo "-- moved"; find dst | sort
cat dst/x/f2 dst/z/g
rm -r dst/z && rm dst/x/lf
echo "-- removed"; find dst | sort
rm -r src dst; ls -A; echo end
