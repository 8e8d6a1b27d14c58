#!/bin/bash
# The probe never destroys data by a job file fio accepts: unlink and
# unlink_each_loop remove only files the run created and that hold no data;
# a target swapped for another after the checks is checked again through
# the job's own descriptor; filesystems past offset 0 without a partition
# table (at 1 MiB, and where a clone's region starts: fio's offset +
# offset_increment * (numjobs - 1)) are found; a FIFO is refused at once,
# before the checks and when swapped in later.  Images are sparse files
# made by mkfs.ext4; "intact" is blkid finding the same filesystem UUID.
. "$(dirname "$0")/lib.sh"
echo "1..13"
cd "$WORK" || exit 1
LIMIT=120   # no job here runs for more than a second: a hang is a failure
probe() { timeout -s KILL "$LIMIT" "$PROBE" --eta=never --output-format=json "$@" > out.json 2> err.txt; }
uuid() { blkid -p -o value -s UUID ${2:+-O "$2"} "$1" 2> /dev/null; }
ext4_image() { # ext4_image FILE SIZE [OFFSET]: an ext4 of 16 MiB at OFFSET
	rm -f "$1" && truncate -s "$2" "$1" && mkfs.ext4 -q -F ${3:+-E offset=$3} "$1" 16M
}

# unlink=1 of a job that reads an ext4 image: the image stays, said so
ext4_image img.ext4 32m && before=$(uuid img.ext4)
probe --name=r --filename=img.ext4 --rw=read --size=1m --unlink=1
[ -f img.ext4 ] && [ "$(uuid img.ext4)" = "$before" ] &&
	grep -q "img.ext4: not removed (job 'r', unlink=1): it was there before this run" err.txt
ok $? "unlink=1 of a reading job keeps the ext4 image it read, naming the rule: $(cat err.txt)" err.txt

# a blank file that was there before: kept too; --allow-destroy-data removes it
head -c 1m /dev/urandom > mine.dat
probe --name=r --filename=mine.dat --rw=read --size=1m --unlink=1 && [ -f mine.dat ] &&
	probe --name=r --filename=mine.dat --rw=read --size=1m --unlink=1 --allow-destroy-data &&
	[ ! -e mine.dat ]
ok $? "a file that was there before stays; --allow-destroy-data removes it" err.txt

# fio's unlink of the files a job created is kept
probe --name=w --filename=new.dat --rw=write --size=1m --unlink=1 && [ ! -e new.dat ] &&
	probe --name=r --filename=new2.dat --rw=read --size=1m --unlink=1 && [ ! -e new2.dat ] &&
	[ ! -s err.txt ]
ok $? "files the run created (written, or laid out to be read) are removed, silently" err.txt

# unlink_each_loop: the same rules before every loop after the first
before=$(uuid img.ext4)
probe --name=r --filename=img.ext4 --rw=read --size=1m --loops=3 --unlink_each_loop=1 &&
	[ "$(uuid img.ext4)" = "$before" ] &&
	[ "$(grep -c "not removed (job 'r', unlink_each_loop=1)" err.txt)" = 1 ]
ok $? "unlink_each_loop=1 keeps the image too, said once: $(cat err.txt)" err.txt

# a file the run created but a loop's writes turned into an ext4: holds data
ext4_image src.ext4 32m
probe --name=w --filename=dst.dat --rw=write --size=32m --bs=1m --unlink=1 \
	--exec_postrun="cp src.ext4 dst.dat"
[ -f dst.dat ] && grep -q "dst.dat: not removed (job 'w', unlink=1): it holds data (ext4" err.txt
ok $? "a created file that holds a filesystem when the job ends is kept: $(cat err.txt)" err.txt

# a filesystem at 1 MiB with no partition table before it
ext4_image off.img 64m 1048576 && before=$(uuid off.img 1048576)
probe --name=w --filename=off.img --rw=write --size=8m --offset=4m
[ $? = 1 ] && grep -q "refusing to write.*ext4 filesystem.*at offset 1048576" err.txt &&
	[ "$(uuid off.img 1048576)" = "$before" ]
ok $? "ext4 at 1 MiB, no partition table: refused, intact: $(cat err.txt)" err.txt

# where the third of four clones starts (offset_increment=100m): 200 MiB
ext4_image clone.img 400m 209715200 && before=$(uuid clone.img 209715200)
probe --name=w --filename=clone.img --rw=write --size=1m --numjobs=4 --offset_increment=100m
[ $? = 1 ] && grep -q "refusing to write.*ext4 filesystem.*at offset 209715200" err.txt &&
	[ "$(uuid clone.img 209715200)" = "$before" ]
ok $? "ext4 where clone 3 of numjobs=4, offset_increment=100m starts: refused: $(cat err.txt)" err.txt

# the target checked, then swapped (a symlink pointed elsewhere) before the
# job opens it: an earlier job's exec_prerun swaps it, deterministically
ext4_image victim.ext4 32m && before=$(uuid victim.ext4)
truncate -s 32m blank.img && ln -sf blank.img target
cat > swap.fio <<EOF
[swap]
ioengine=null
size=4k
exec_prerun=ln -sfn victim.ext4 target
[w]
stonewall
filename=target
rw=write
size=4m
EOF
probe swap.fio
grep -q "target: refusing to write (job 'w'): what it names now holds data: ext4" out.json err.txt &&
	[ "$(uuid victim.ext4)" = "$before" ]
ok $? "a symlink swapped to an ext4 image after the checks: refused through the job's descriptor" err.txt

# the same swap with --allow-destroy-data writes (the override still works)
ln -sfn blank.img target
probe swap.fio --allow-destroy-data && [ "$(uuid victim.ext4)" != "$before" ]
ok $? "--allow-destroy-data: the swapped-in image is written" err.txt

# a FIFO: refused before anything, for a reading and a writing job
mkfifo fifo
probe --name=r --filename=fifo --rw=read --size=1m; rc=$?
[ $rc = 1 ] && grep -q "fifo is a FIFO (named pipe), not a regular file or device (job 'r')" err.txt
ok $? "a reading job on a FIFO: refused at once (exit $rc): $(cat err.txt)" err.txt
probe --name=w --filename=fifo --rw=write --size=1m; rc=$?
[ $rc = 1 ] && grep -q "fifo is a FIFO (named pipe), not a regular file or device" err.txt
ok $? "a writing job on a FIFO: refused at once (exit $rc): $(cat err.txt)" err.txt

# a FIFO swapped in after the checks: the job's open does not block
head -c 1m /dev/urandom > late.dat
printf '[swap]\nioengine=null\nsize=4k\nexec_prerun=sh -c "rm late.dat; mkfifo late.dat"\n[r]\nstonewall\nfilename=late.dat\nrw=read\nsize=1m\n' > late.fio
probe late.fio; rc=$?
[ $rc != 137 ] && grep -q "late.dat is a FIFO (named pipe), not a regular file or device" out.json err.txt
ok $? "a FIFO swapped in after the checks: the job fails at its open, no hang (exit $rc)" err.txt

# a file that exists on a read-only mount: the message is the system's
# (EROFS), never "cannot create"
RO=$WORK/ro
mkdir "$RO" && mount -t tmpfs -o size=4m tmpfs "$RO" && head -c 1m /dev/urandom > "$RO/f" &&
	mount -o remount,ro "$RO"
"$PROBE" --name=w --filename="$RO/f" --rw=write --bs=4k --size=1m > "$WORK/ro.out" 2>&1
rc=$?
umount "$RO"
[ $rc != 0 ] && grep -q "Read-only file system" "$WORK/ro.out" && ! grep -q "cannot create" "$WORK/ro.out"
ok $? "a file on a read-only mount: exit $rc, $(grep -m1 -o 'Read-only file system' "$WORK/ro.out" || cat "$WORK/ro.out")"

finish
