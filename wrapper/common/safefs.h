/*
 * safefs.h - file operations that stay safe in a directory another user can
 * write: the privilege boundary between pgbuild (often root) and the server
 * user it hands trees to, and the bounded reader for every file pgoptcc or
 * pgbuild reads back or picks up by itself.
 *
 * The threat: pgbuild runs as root and hands build trees, clusters and work
 * directories to the server user (postgres), whose processes run whatever
 * SQL and regression tests do.  Anything in such a tree can be replaced by a
 * symbolic link, a FIFO or a huge file between two calls.  A path-based
 * call as root (open, chown, chmod, rename) follows a planted link out of
 * the tree: a file written where root alone may write, a file given to the
 * server user.  The rules, after OpenSSH's safe_path and git's
 * safe.directory:
 *
 *  1. A tree another user can write is entered only through a descriptor
 *     (an "anchor") that the caller opened on a path it trusts: pgbuild
 *     made the directory itself, or the caller named it.
 *  2. Below an anchor, every component is opened with O_NOFOLLOW (a
 *     symbolic link anywhere is refused, ELOOP), relative to its parent's
 *     descriptor: sfs_open_dir, sfs_create, sfs_write_atomic, sfs_read,
 *     sfs_mkdir, sfs_chown_tree, sfs_remove.
 *  3. New files are created O_EXCL (never opened if they exist), renamed
 *     within one directory descriptor; ownership and modes are changed with
 *     fchown/fchmod on a descriptor, or fchownat(AT_SYMLINK_NOFOLLOW).
 *  4. Files read back (logs, results, settings, lists) must be regular
 *     files (a FIFO would block, a device never end) and at most a limit
 *     long; they are opened O_NONBLOCK so that even a FIFO returns at once.
 *
 * Errors: every function returns -1 with errno set, and when err is not
 * NULL appends one sentence naming the path and the reason ("cannot open
 * DIR/x: a component is a symbolic link (refused below DIR)").  Nothing is
 * printed.  Relative paths here (rel) are relative to an anchor descriptor;
 * AT_FDCWD as the anchor means the current directory (and then an absolute
 * rel is walked from "/", every component O_NOFOLLOW).
 */
#ifndef PGOPT_SAFEFS_H
#define PGOPT_SAFEFS_H

#include <fcntl.h>   /* AT_FDCWD */
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "wrapper/common/strbuf.h"

/*
 * What a file read back is, and so how long it may be: every file another
 * party may have written (a policy, a bundle's member, a compile log, a
 * build record, a result, a server's log, a profile) is read through
 * sfs_read or sfs_open_input with one of these, and the limit the kind
 * has is the one the error states.  The table is sfs_inputs[] in
 * safefs.c; tests/lib/readers.pl checks that no other code opens a file
 * to read it.
 */
enum sfs_input {
	SFS_IN_TEXT,		/* a policy, hot/cold list, candidate list, SQL or bench script: 16 MiB */
	SFS_IN_SETTINGS,	/* pgoptcc.conf, a --temp-config file: 16 MiB */
	SFS_IN_MANIFEST,	/* a bundle's manifest, a build record (pgopt-build.json): 16 MiB */
	SFS_IN_JSON,		/* a result: bench, gate, inspect, noise, run state, reports: 64 MiB */
	SFS_IN_LOG,		/* a program's or server's log, regression.diffs: 64 MiB */
	SFS_IN_COMPILE_LOG,	/* compile.jsonl and the plugin's function records: 256 MiB */
	SFS_IN_COUNTS,		/* gcov counts (.gcda), the gate's callgrind outputs: 64 MiB */
	SFS_IN_PROFILE,		/* clang's raw and indexed profiles, BOLT's .fdata: 256 MiB */
	SFS_IN_CALLGRIND,	/* explain's callgrind outputs: 512 MiB */
	SFS_IN_BINARY,		/* an ELF program, library or archive: 1 GiB */
	SFS_IN_SYSTEM,		/* a file of /proc or /sys: 1 MiB */
	SFS_IN_KINDS
};

/* The limit of a kind, in bytes, and its name for messages ("a compile
 * log"). */
size_t sfs_input_limit(enum sfs_input kind);
const char *sfs_input_name(enum sfs_input kind);

/* The limit of policies, lists and settings files (SFS_IN_TEXT's). */
#define SFS_READ_LIMIT ((size_t)16 << 20)

/* Flags of sfs_read and sfs_open_input. */
#define SFS_NOFOLLOW 1u  /* every component below dirfd O_NOFOLLOW, not only the last */

/*
 * Open the file at rel (relative to dirfd; AT_FDCWD and any path for a
 * file the caller named) to read it: O_RDONLY | O_NONBLOCK | O_NOFOLLOW
 * (the last component is never a link: "it is a symbolic link (refused)"),
 * then fstat: refused unless a regular file (a FIFO, device, socket or
 * directory: EINVAL / EISDIR) of at most kind's limit (EFBIG).  With
 * SFS_NOFOLLOW every component below dirfd is opened O_NOFOLLOW too (for
 * files in trees another user writes); without it the directories on the
 * way are followed (a path the caller chose).  Fills *st when not NULL.
 * Returns the descriptor (O_CLOEXEC), for readers that stream (libelf, a
 * hash), or -1.
 */
int sfs_open_input(int dirfd, const char *rel, enum sfs_input kind, unsigned flags,
		   struct stat *st, struct strbuf *err);

/* The same with name (a path the reader knows rel by) in its messages. */
int sfs_open_input_as(int dirfd, const char *rel, const char *name, enum sfs_input kind,
		      unsigned flags, struct stat *st, struct strbuf *err);

/*
 * Read the file at rel the same way into out (appended): refused as above,
 * and when it grows past kind's limit while read.  Returns the bytes
 * read, or -1.
 */
long sfs_read(int dirfd, const char *rel, enum sfs_input kind, unsigned flags,
	      struct strbuf *out, struct strbuf *err);

/* The same with name (how the caller calls the file: 'script "x.sql"')
 * in its messages: "cannot read script "x.sql": REASON". */
long sfs_read_as(int dirfd, const char *rel, const char *name, enum sfs_input kind,
		 unsigned flags, struct strbuf *out, struct strbuf *err);

/*
 * The same for a descriptor the caller opened (O_NONBLOCK, so that a FIFO
 * did not block the open) and may have checked with fstat first: read
 * through it, so what is read is the file that was checked.  name is for
 * messages.  fd stays open.  Returns the bytes read, or -1.
 */
long sfs_read_fd(int fd, const char *name, enum sfs_input kind, struct strbuf *out,
		 struct strbuf *err);

/*
 * Open the directory rel below dirfd, every component O_NOFOLLOW |
 * O_DIRECTORY (rel "" or "." is dirfd itself, duplicated).  Returns a new
 * descriptor (O_CLOEXEC), or -1.
 */
int sfs_open_dir(int dirfd, const char *rel, struct strbuf *err);

/*
 * Open an anchor: the directory at path (which the caller trusts: it named
 * it, or made it), following links in its parents but not in its last
 * component, and check it is owned by owner (-1: anyone) and, with
 * private_only, writable by nobody but its owner.  Returns the
 * descriptor, or -1 (EPERM: the owner or mode check failed).
 */
int sfs_open_anchor(const char *path, uid_t owner, int private_only,
		    struct strbuf *err);

/*
 * The one rule for a directory root works in or reads what it decides by
 * (a --workdir, a compile log directory and its side directories): as
 * root, the directory open as fd must be owned by root and writable by no
 * other user - not by others, nor by a group other than root's; a sticky
 * bit is no exemption (fixed names are made and read there, which another
 * user could make first).  Not root: 0, nothing checked.  Otherwise -1
 * (EPERM) with one sentence in err: "WHAT DIR: another user can change
 * what is in it (mode M, owner U): PROG runs as root and USE; give a
 * directory only root can write (chown root DIR; chmod go-w DIR)", PROG
 * the program (error_program()), use what it does there ("keeps its files
 * there").
 */
int sfs_root_only(int fd, const char *what, const char *dir, const char *use,
		  struct strbuf *err);

/*
 * Create the new file rel below dirfd: O_CREAT | O_EXCL | O_NOFOLLOW (an
 * existing file or link there is EEXIST, never opened), with flags added
 * (O_WRONLY, O_APPEND ...) and mode.  Returns the descriptor, or -1.
 */
int sfs_create(int dirfd, const char *rel, int flags, mode_t mode, struct strbuf *err);

/*
 * Replace rel below dirfd with buf atomically: a new temporary file beside
 * it (O_EXCL, a random name), fsync, renameat over rel within the same
 * directory descriptor (a link at rel is replaced, not followed).  Returns
 * 0, or -1 with the temporary file removed and rel untouched.
 */
int sfs_write_atomic(int dirfd, const char *rel, const void *buf, size_t len,
		     mode_t mode, struct strbuf *err);

/*
 * Make the directory rel below dirfd (its parents must exist), or take the
 * one there when exist_ok and it is a real directory owned by us (or by
 * uid, the owner it is to have: a directory handed over before); then set
 * its mode and, when uid is not (uid_t)-1, its owner, through its
 * descriptor.  Returns the directory's descriptor, or -1.
 */
int sfs_mkdir(int dirfd, const char *rel, mode_t mode, uid_t uid, gid_t gid,
	      int exist_ok, struct strbuf *err);

/*
 * Give rel below dirfd and everything in it to uid:gid, like chown -R -P:
 * a physical walk through descriptors, fchownat(AT_SYMLINK_NOFOLLOW) for
 * every entry (a link itself changes owner, its target never), never
 * leaving the file system of rel.  Entries that vanish during the walk are
 * no error.  Returns how many entries changed owner, or -1.
 */
long sfs_chown_tree(int dirfd, const char *rel, uid_t uid, gid_t gid, struct strbuf *err);

/*
 * Remove rel below dirfd: a file or link is unlinked, a directory removed
 * with everything in it (never following a link); missing is success.
 * Returns 0, or -1.
 */
int sfs_remove(int dirfd, const char *rel, struct strbuf *err);

/*
 * Is there an entry below rel (dirfd) that someone other than uid could
 * change?  One owned by another user, or (links aside) writable by others
 * or by a group other than gid.  A physical walk that never leaves rel's
 * file system; the top-level entries named in skip (NULL-terminated, may
 * be NULL) are not looked at.  Returns 1 with the entry's path (relative
 * to rel) appended to bad and its owner in *owner, 0 when there is none,
 * -1 on error.  Before root runs make in a tree or reads build
 * instructions from it: a tree the server user owns holds its Makefiles.
 */
int sfs_tree_foreign(int dirfd, const char *rel, uid_t uid, gid_t gid,
		     const char *const *skip, struct strbuf *bad, uid_t *owner,
		     struct strbuf *err);

/*
 * Make dst_rel below dstfd (it must not exist) a copy of the tree src_rel
 * below srcfd made of hard links, for a user who may change the copy but
 * not the source: directories are new, owned by uid:gid with their
 * source's mode plus u+rwx; regular files are hard links to the source's
 * (the same inode: still the source owner's, read-only to uid); a file
 * that group or others may write, or a set-id one, is copied instead (a
 * new file, uid's); symbolic links are made again; FIFOs, sockets and
 * devices are left out, as are the top-level names in skip.  Times are
 * kept.  The source must be a tree nobody else can change
 * (sfs_tree_foreign) on one file system.  dst_rel stays root-only (0700,
 * ours) until the whole copy stands, then becomes uid's.  Returns the
 * number of entries made, or -1 with what was made removed.
 */
long sfs_link_tree(int srcfd, const char *src_rel, int dstfd, const char *dst_rel,
		   uid_t uid, gid_t gid, const char *const *skip, struct strbuf *err);

/*
 * Copy the regular file src_rel below srcfd (every component O_NOFOLLOW,
 * at most kind's limit: sfs_read) to dst_rel below dstfd (sfs_write_atomic,
 * mode).  For the files root takes back from a tree another user writes
 * (profiles, logs).  Returns the bytes copied, or -1.
 */
long sfs_copy_back(int srcfd, const char *src_rel, int dstfd, const char *dst_rel,
		   enum sfs_input kind, mode_t mode, struct strbuf *err);

/*
 * The one walk of a tree below the directory open as fd (the caller's, left
 * open), for every tree walk (the three above; bundle_verify's,
 * the profile's gcda walks, build's count of C files; tests/lib/readers.pl
 * refuses nftw, ftw and fts_open).  Every entry but "." and ".." is fstatat'ed
 * (AT_SYMLINK_NOFOLLOW) and handed to visit, a directory before its
 * entries, in readdir's order; a directory is then entered with
 * openat(O_NOFOLLOW | O_DIRECTORY) below its parent's descriptor, never
 * through a link (a link is visited as a link), at most SFS_MAX_DEPTH
 * levels down.  An entry that vanishes before it is looked at (ENOENT) is
 * skipped; a directory that vanishes before it is entered is walked as
 * empty.  top names the tree in messages, as the caller knows it ("": the
 * paths are REL alone).  Returns 0 when every entry was visited, 1 when
 * the visitor stopped the walk (SFS_WALK_STOP), -1 on error with one
 * sentence in err: the visitor's, or the walker's ("cannot read the
 * directory TOP/REL: R", "cannot inspect TOP/REL: R", "cannot open the
 * directory TOP/REL: R", "cannot walk TOP: directories nested too deep
 * (more than 256 levels)").
 */
#define SFS_MAX_DEPTH 256     /* levels below the top a walk (and remove_tree,
			       * rmtree.h) goes down */

/* What visit returns. */
enum sfs_walk_next {
	SFS_WALK_ERROR = -1,  /* stop; the visitor wrote err (return sfs_fail(e->err,
			       * ...) does): the walk returns -1 */
	SFS_WALK_NEXT = 0,    /* go on (into it, for a directory) */
	SFS_WALK_SKIP = 1,    /* go on, but not into this directory */
	SFS_WALK_AFTER = 2,   /* into this directory, and visit it again after its
			       * entries went well (post-order: e->after set) */
	SFS_WALK_STOP = 3     /* stop: found what the walk was for; it returns 1 */
};

/* One entry, as visit sees it; the strings are the walker's, valid during
 * the call. */
struct sfs_entry {
	int fd;               /* the directory it is in (the walker's descriptor) */
	const char *name;     /* its name there */
	const char *rel;      /* its path below the top ("a/b/name") */
	const char *path;     /* "TOP/REL", for messages */
	struct stat st;       /* fstatat(fd, name, AT_SYMLINK_NOFOLLOW) */
	int depth;            /* directories between the top and it: 0 in the top */
	int after;            /* 1: a directory's second visit (SFS_WALK_AFTER) */
	int parent_out;       /* the out of the directory it is in (-1 in the top) */
	int out;              /* a directory's descriptor of the visitor's own (a copy's
			       * directory), set by its first visit, seen by its
			       * entries as parent_out, closed by the walker; -1 */
	struct strbuf *err;   /* where a visitor's sentence goes (may be NULL) */
};

int sfs_walk_tree(int fd, const char *top,
		  enum sfs_walk_next (*visit)(struct sfs_entry *e, void *ctx), void *ctx,
		  struct strbuf *err);

/*
 * What a file is, for messages: "a regular file", "a directory", "a FIFO",
 * "a symbolic link", "a character device", "a block device", "a socket".
 */
const char *sfs_kind(mode_t mode);

#endif
