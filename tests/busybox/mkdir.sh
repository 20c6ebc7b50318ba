# mkdir -p, ln -s, hard links and their counts, chmod, rmdir, errors.
mkdir -p p/q/r && mkdir -p p/q && echo "mkdir -p again: $?"
mkdir p 2>/dev/null; echo "mkdir exists: $?"
ln -s q p/lq && ls -d p/lq/r && ln -s nowhere dangling && ls -l dangling | cut -c1
echo x > f && ln f g && ln g h && stat -c %h f
rm g && stat -c %h f h
chmod 4755 f && stat -c %a f && chmod u-s,o-rx f && stat -c %a f
rmdir p/q 2>/dev/null; echo "rmdir non-empty: $?"
rmdir p/q/r && rmdir p/q && rm p/lq && rmdir p && echo gone
mkdir -m 700 m && stat -c %a m
cd m && pwd | sed 's|.*/||' && cd .. && rmdir m
echo end
