/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * changeset.h: changeset.c -- the changeset stream, version 1: a writer
 * and a strict, incremental parser (issue 23, doc/design.md).
 *
 * A stream is what a run on an overlay changed beneath its workdir, as
 * the shim found it in the upper layer: a 16-byte header, records sorted
 * by path (strictly increasing, memcmp order), an end record, nothing
 * after.  All integers are big-endian.
 *
 *   header (16):  "SBXCS\0\1\0", u32 record count (end record excluded),
 *                 u32 zero
 *   record (96):  u8 kind, u8 base_kind, u16 path_len, u32 mode,
 *                 u64 size, u64 base_size, u64 base_ino, u64 base_dev,
 *                 i64 base_mtime_ns, i64 base_ctime_ns, u32 base_mode,
 *                 u32 reserved (0), u8[32] base_sha256
 *                 then path_len path bytes, then size data bytes
 *   end record:   kind 'E', everything else zero
 *
 * The stream crosses trust boundaries: the shim writes it inside a
 * sandbox (whose payload chose every path and byte), the monitor stores
 * it, the client reads it to show and apply.  So the parser refuses
 * anything but the one valid form, each error naming the record, the
 * field and the rule, and it is bounded: one record header, one path and
 * one read buffer in memory, never the stream.  This file is also built
 * into libsbx: it never logs, never exits, never uses the x* allocators.
 */
#ifndef SBX_CHANGESET_H
#define SBX_CHANGESET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SBX_CS_MAGIC		"SBXCS\0\1\0"	/* 8 bytes: magic, v1, 0 */
#define SBX_CS_HEADER_LEN	16
#define SBX_CS_RECORD_LEN	96
#define SBX_CS_MAX_RECORDS	1000000
#define SBX_CS_PATH_MAX		4095		/* path_len 1..4095 */
#define SBX_CS_LINK_MAX		4095		/* symlink target 1..4095 */
#define SBX_CS_SHA256_LEN	32

/* kind */
#define SBX_CS_FILE		'f'
#define SBX_CS_SYMLINK		'l'
#define SBX_CS_DIR		'd'
#define SBX_CS_WHITEOUT		'w'		/* the path was deleted */
#define SBX_CS_END		'E'
/* base_kind: what the lower layer (DIR) held; also 0 (nothing) */
#define SBX_CS_OTHER		'o'

struct sbx_cs_rec {
	uint8_t		 kind;
	uint8_t		 base_kind;
	uint16_t	 path_len;
	uint32_t	 mode;		/* permission bits (& 07777) */
	uint64_t	 size;		/* data bytes after the path */
	uint64_t	 base_size;
	uint64_t	 base_ino;
	uint64_t	 base_dev;
	int64_t		 base_mtime_ns;
	int64_t		 base_ctime_ns;
	uint32_t	 base_mode;	/* st_mode of the lower entry, or 0 */
	unsigned char	 base_sha256[SBX_CS_SHA256_LEN];
	char		 path[SBX_CS_PATH_MAX + 1];	/* NUL-terminated */
	/* 'l': the target, read with the record (NUL-terminated). */
	char		 target[SBX_CS_LINK_MAX + 1];
};

/* What a user is shown for a record: 'A', 'M' or 'D'. */
char	 sbx_cs_op(const struct sbx_cs_rec *);

/*
 * Writer.  Records must come in the stream's order (strictly increasing
 * paths, nothing beneath a deleted path, a file or a symlink): the writer
 * refuses them otherwise, so it never writes a stream the parser refuses.
 * count is the number of records to come, or -1 when not known: then the
 * end patches the header, which needs a seekable descriptor.  On failure
 * NULL / -1, and the reason in err (begin) or sbx_cs_werror.
 */
struct sbx_cs_writer;
struct sbx_cs_writer *sbx_cs_write_begin(int fd, long long count, char *err,
	    size_t errlen);
/*
 * One record from rec's fields and path (rec->path_len is ignored: the
 * path's length is taken).  Its data: rec->size bytes copied from datafd
 * if datafd != -1 (a file that is shorter or longer is refused), else
 * from data.  A symlink's data is its target, from data or (when data
 * is NULL) rec->target, never from a descriptor.
 */
int	 sbx_cs_write(struct sbx_cs_writer *, const struct sbx_cs_rec *,
	    int datafd, const void *data);
/* The end record, the count if it was not known; flushes. 0 or -1. */
int	 sbx_cs_write_end(struct sbx_cs_writer *);
const char *sbx_cs_werror(const struct sbx_cs_writer *);
void	 sbx_cs_write_free(struct sbx_cs_writer *);

/*
 * Parser.  sbx_cs_open reads and checks the header.  sbx_cs_next gives
 * the next record (skipping what was not read of the previous one's
 * data): 1 a record, 0 the end record was valid and nothing follows, -1
 * refused or failed (sbx_cs_error says which record, field and rule).
 * A symlink's target comes with its record, in rec->target.
 * sbx_cs_read reads the current file record's data in chunks: bytes
 * read, 0 at its end, -1 failed.
 */
struct sbx_cs_reader;
struct sbx_cs_reader *sbx_cs_open(int fd, char *err, size_t errlen);
int	 sbx_cs_next(struct sbx_cs_reader *, struct sbx_cs_rec *);
ssize_t	 sbx_cs_read(struct sbx_cs_reader *, void *, size_t);
uint32_t sbx_cs_count(const struct sbx_cs_reader *);
const char *sbx_cs_error(const struct sbx_cs_reader *);
void	 sbx_cs_close(struct sbx_cs_reader *);

/*
 * The checks both sides make on a record, alone (fields, path) and
 * against the records before it (order, parents): for tests and for
 * those that build records.  0, or -1 with the rule in err.
 */
int	 sbx_cs_rec_check(const struct sbx_cs_rec *, size_t pathlen,
	    char *err, size_t errlen);

/*
 * A stream's writer that failed replaces what it wrote with this mark and
 * its reason (at most SBX_CS_FAIL_MAX bytes in all), so the reader tells
 * "the changes are lost, and why" from "nothing changed" (an empty file).
 * sbx_cs_failure: 1 and the reason (printable ASCII, others as '?') when
 * fd holds such a mark, 0 when it does not, -1 on a read error; reads
 * from the start and leaves the descriptor there (lseek, read: no pread,
 * which the monitor's filter does not allow).
 */
#define SBX_CS_FAIL_MARK	"SBXCS-FAILED\n"
#define SBX_CS_FAIL_MAX		256
int	 sbx_cs_failure(int fd, char *why, size_t whylen);

/* err (when not NULL) from a format: every error message is made so. */
void	 sbx_cs_seterr(char *err, size_t errlen, const char *fmt, ...)
	    __attribute__((__format__(printf, 3, 4)));

#endif /* SBX_CHANGESET_H */
