/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * provider.h: gate metric providers, everything that touches their
 * untrusted bytes (design.md 1, 5; interop.md part P): bundle snapshots and
 * code digests, manifests and in-bundle reviews, the operator's allowlist,
 * run requests and nonces, result frames, descriptors, records digests,
 * seeds and binding pins, and the node command line of a provider
 * sandbox with its embedded driver.  A library: the provider runner runs
 * it on bundles, the monitor plans provider sandboxes with node.c, sbxctl
 * digests bundles offline.
 *
 * Nothing here calls fatal() on bad input: every refusal is returned as a
 * struct prov_error whose code is the reference's GateProviderError code
 * and whose message names the input and the rule that refused it.
 */
#ifndef SBX_PROVIDER_H
#define SBX_PROVIDER_H

#include <stddef.h>
#include <stdint.h>

#include "common.h"
#include "beneath.h"
#include "proto.h"

/* ---- error.c ----------------------------------------------------------- */
enum prov_code {
	PROV_OK = 0,
	PROV_DISABLED,
	PROV_PATH_ESCAPE,
	PROV_OVERSIZE,
	PROV_MISSING_ATTESTATION,
	PROV_ATTESTATION_MISMATCH,
	PROV_INVALID_MODULE,
	PROV_UNREGISTERED,
	PROV_TIMEOUT,
	PROV_CANCELLED,
	PROV_REJECTED,
	PROV_BUDGET_EXCEEDED,
	PROV_INVALID_RECORDS,
	PROV_DUPLICATE,
	PROV_SANDBOX_UNAVAILABLE,
	PROV_INVALID_ALLOWLIST	/* sbx: the operator's allowlist file */
};

#define PROV_ERRMSG_MAX		512
struct prov_error {
	enum prov_code	 code;
	uint32_t	 limit;		/* SBX_LIMIT_* that ended a run, or 0
					   (prov_run_judge; prov_fail clears) */
	char		 msg[PROV_ERRMSG_MAX];
};

/* Untrusted text quoted into a message: at most this many source bytes. */
#define PROV_QUOTE_SRC_MAX	96
#define PROV_QUOTE_MAX		(PROV_QUOTE_SRC_MAX * 4 + 4)

const char	*prov_code_name(enum prov_code);
int		 prov_fail(struct prov_error *, enum prov_code, const char *,
		    ...) SBX_PRINTF(3, 4);
void		 prov_prefix(struct prov_error *, const char *, ...)
		    SBX_PRINTF(2, 3);
void		 prov_quote(char dst[PROV_QUOTE_MAX], const void *, size_t);

/* ---- field.c: reading schema-checked JSON ------------------------------ */
/* "sha256:" and 64 lowercase hex digits (the reference's digest pattern). */
int	 prov_digest_ok(const char *);
/* A string or key as printable, bounded text for a message. */
void	 prov_json_quote(char *, size_t, const struct json_string *, size_t);
void	 prov_json_key_quote(char dst[PROV_QUOTE_MAX],
	    const struct json_string *);
/*
 * A JSON string as NUL-terminated UTF-8 in dst: -1 when it is longer than
 * maxunits UTF-16 code units, holds U+0000 or a lone surrogate (neither
 * survives as a C string), or does not fit dstsz.  *why names the rule.
 */
int	 prov_json_cstr(const struct json_string *, size_t maxunits,
	    char *dst, size_t dstsz, const char **why);
/* ECMAScript String.prototype.trim: is nothing left? */
int	 prov_json_blank(const struct json_string *);
/* Building trees (for json_canonical); json_value_clear frees them. */
void	 prov_json_object(struct json_value *, size_t);
void	 prov_json_array(struct json_value *, size_t);
struct json_value *prov_json_member(struct json_value *, size_t,
	    const char *);
struct json_value *prov_json_member_n(struct json_value *, size_t,
	    const char *, size_t);
int	 prov_json_string(struct json_value *, const char *, size_t);
void	 prov_json_number(struct json_value *, double);

/* ---- date.c: date-time strings ---------------------------------------- */
/*
 * The review shape: YYYY-MM-DDTHH:MM:SS[.fraction]Z with a real calendar
 * date (what Zod's datetime() accepts, or stricter).  0 and the instant
 * in epoch milliseconds (fraction truncated), or -1.
 */
int	 prov_datetime_zod(const char *, int64_t *);
/*
 * The allowlist shape: the ECMAScript Date Time String Format (date, or
 * date and time, optional Z or +HH:MM); every value accepted here is one
 * Date.parse accepts.  0 or -1.
 */
int	 prov_datetime_es(const char *);

/* ---- path.c: path rules of the snapshot and the linker ----------------- */
#define PROV_PATH_MAX		1024	/* sbx: bundle-relative paths */
#define PROV_RESERVED_PREFIX	"__aiwg_"
/* ^[a-zA-Z0-9_-]+(?:/[a-zA-Z0-9_-]+)*\.<ext>$, and at most PROV_PATH_MAX. */
int	 prov_path_module_ok(const char *, size_t);	/* ext "mjs" */
int	 prov_path_review_ok(const char *, size_t);	/* ext "json" */
int	 prov_name_reserved(const char *);
int	 prov_name_module(const char *);		/* ends in ".mjs" */
/* dir "" or "a/b", name -> "a/b/name"; -1 if it would not fit. */
int	 prov_path_join(const char *, const char *, char *, size_t);
/*
 * The driver's linker rule (driver.mjs resolveSpecifier), for tests and
 * fuzzing: a static import spec from module parent resolves to out, or
 * -1 with the reason (invalid-module).
 */
int	 prov_path_resolve(const char *parent, const char *spec, char *out,
	    size_t outsz, struct prov_error *);

/* ---- snapshot.c: interop.md §P2 -------------------------------------- */
#define PROV_MAX_FILES		20
#define PROV_MAX_FILE_BYTES	262144
#define PROV_MAX_TOTAL_BYTES	1048576
#define PROV_MAX_DEPTH		32	/* sbx: directory nesting */
#define PROV_MAX_WALK		4096	/* sbx: names looked at per walk */

struct prov_module {
	char		*path;		/* bundle-relative, '/'-separated */
	unsigned char	*bytes;		/* valid UTF-8 */
	size_t		 len;
	char		 sha256[DIGEST_HEX_LEN + 1];
};

struct prov_snapshot {
	char			*entry;
	struct prov_module	 mods[PROV_MAX_FILES];	/* sorted by path */
	size_t			 nmods;
	size_t			 total;			/* bytes */
	char			 code_digest[DIGEST_STR_LEN + 1];
};

int	 prov_snapshot_take(int, const char *, struct prov_snapshot *,
	    struct prov_error *);
void	 prov_snapshot_copy(struct prov_snapshot *,
	    const struct prov_snapshot *);
int	 prov_snapshot_verify(const struct prov_snapshot *, const char *,
	    struct prov_error *);
void	 prov_snapshot_free(struct prov_snapshot *);
/* artifactDigest({externals: [], files: [{path, sha256}...]}) */
int	 prov_code_digest(const struct prov_module *, size_t,
	    char[DIGEST_STR_LEN + 1]);

/* ---- manifest.c, review.c: what a bundle declares (interop.md §P1) ---- */
#define PROV_MANIFEST_MAX	65536
#define PROV_MANIFEST_NAME	"manifest.json"
#define PROV_REVIEW_FILE_MAX	8192
#define PROV_MAX_PROVIDERS	20
#define PROV_BUNDLE_ID_MAX	64
#define PROV_ID_MAX		128
#define PROV_VERSION_MAX	128	/* sbx: the reference has no bound */
#define PROV_DESC_MAX		512
#define PROV_REVIEWER_MAX	128
#define PROV_DATETIME_MAX	64	/* sbx */
/* UTF-16 units to UTF-8 bytes: at most 3 bytes a unit. */
#define PROV_U8(n)		((n) * 3 + 1)

struct prov_review {
	char	 reviewer[PROV_U8(PROV_REVIEWER_MAX)];
	char	 reviewed_at[PROV_DATETIME_MAX + 1];
	char	 code_digest[DIGEST_STR_LEN + 1];
};

struct prov_entry {
	char			 id[PROV_ID_MAX + 1];
	char			 version[PROV_U8(PROV_VERSION_MAX)];
	char			 module[PROV_PATH_MAX + 1];
	char			 description[PROV_U8(PROV_DESC_MAX)];
	int			 has_review;	/* inline; else review_file */
	struct prov_review	 review;
	char			 review_file[PROV_PATH_MAX + 1];
};

struct prov_manifest {
	char			 bundle_id[PROV_BUNDLE_ID_MAX + 1];
	struct prov_entry	 entries[PROV_MAX_PROVIDERS];
	size_t			 nentries;
};

int	 prov_manifest_parse(const void *, size_t, struct prov_manifest *,
	    struct prov_error *);
int	 prov_manifest_load(int, struct prov_manifest *, struct prov_error *);

/* review.c.  parse: the review object's shape; code says who refuses. */
int	 prov_review_parse(const struct json_value *, const char *,
	    enum prov_code, struct prov_review *, struct prov_error *);
int	 prov_review_read(int, const struct prov_entry *,
	    struct prov_review *, struct prov_error *);
int	 prov_review_check(const struct prov_review *, const char *,
	    const char *, int64_t, struct prov_error *);

/* ---- allowlist.c: the trust root (interop.md §P4) --------------------- */
#define PROV_ALLOWLIST_MAX	(1024 * 1024)	/* sbx: file bytes */
#define PROV_ALLOW_MAX		4096		/* sbx: entries */
#define PROV_ALLOW_ID_MAX	256		/* sbx: bundleId, providerId */

struct prov_allow {
	char	 bundle_id[PROV_U8(PROV_ALLOW_ID_MAX)];
	char	 provider_id[PROV_U8(PROV_ALLOW_ID_MAX)];
	char	 code_digest[DIGEST_STR_LEN + 1];
	char	 reviewer[PROV_U8(PROV_REVIEWER_MAX)];
	char	 reviewed_at[PROV_DATETIME_MAX + 1];
};

struct prov_allowlist {
	struct prov_allow	*v;
	size_t			 n;
};

int	 prov_allowlist_parse(const void *, size_t, struct prov_allowlist *,
	    struct prov_error *);
void	 prov_allowlist_free(struct prov_allowlist *);
int	 prov_allowlist_match(const struct prov_allowlist *, const char *,
	    const char *, const char *, const struct prov_review *,
	    const struct prov_allow **, struct prov_error *);

/* ---- load.c: the load-time checks before the inspect run --------------- */
struct prov_loaded {
	struct prov_snapshot	 snap;
	struct prov_review	 review;	/* the in-bundle review */
	struct prov_allow	 trusted;	/* the allowlist entry */
};

int	 prov_load_entry(int, const struct prov_manifest *, size_t,
	    const struct prov_allowlist *, int64_t, struct prov_loaded *,
	    struct prov_error *);

/* ---- request.c: one run's stdin (interop.md §P5.3) -------------------- */
#define PROV_NONCE_BYTES	32
#define PROV_NONCE_HEX		(PROV_NONCE_BYTES * 2)
#define PROV_INSPECT_SEED	1

enum prov_mode {
	PROV_INSPECT,
	PROV_INVOKE
};

struct prov_run {
	enum prov_mode			 mode;
	const struct prov_snapshot	*snap;
	const char			*issued_digest;	/* from the load */
	const char			*pinned_digest;	/* or NULL */
	const char			*expected_id;
	const char			*expected_version;
	const struct json_value		*records;	/* invoke: an array */
	/* Its canonical text if the caller has it already, or NULL. */
	const char			*records_text;
	size_t				 records_len;
	int64_t				 clock_ms;
	uint32_t			 seed;
	size_t				 max_output;	/* the frame cap */
};

void	 prov_nonce_new(char[PROV_NONCE_HEX + 1]);
int	 prov_request_build(const struct prov_run *, const char *, char **,
	    size_t *, struct prov_error *);

/* ---- frame.c: the result frame (interop.md §P5.5) --------------------- */
#define PROV_FRAME_PREFIX	"AIWG-RESULT "
#define PROV_FRAME_OVERHEAD	(sizeof(PROV_FRAME_PREFIX) - 1 + \
				    PROV_NONCE_HEX + 2)
#define PROV_OUTPUT_DEFAULT	1048576
#define PROV_FRAME_MAX_DEPTH	64
#define PROV_FRAME_MAX_NODES	262144
#define PROV_EXCERPT_MAX	300

int	 prov_frame_parse(const void *, size_t, const char *, size_t,
	    struct json_value **, struct prov_error *);

/* ---- descriptor.c: the inspect run's answer ---------------------------- */
struct prov_descriptor {
	char	 id[PROV_ID_MAX + 1];
	char	 version[PROV_U8(PROV_VERSION_MAX)];
	char	 description[PROV_U8(PROV_DESC_MAX)];
	char	*metrics;		/* canonical JSON text */
	size_t	 metricslen;
	size_t	 nmetrics;
	char	 source_digest[DIGEST_STR_LEN + 1];
};

int	 prov_descriptor_check(const struct json_value *,
	    const struct prov_entry *, struct prov_descriptor *,
	    struct prov_error *);
void	 prov_descriptor_free(struct prov_descriptor *);

/* ---- pin.c: records, seeds, pins, sealed sections (interop.md §P3) ---- */
#define PROV_MAX_RECORDS_DEFAULT 50000

struct prov_identity {
	char	 id[PROV_ID_MAX + 1];
	char	 version[PROV_U8(PROV_VERSION_MAX)];
	char	 source_digest[DIGEST_STR_LEN + 1];
	char	 code_digest[DIGEST_STR_LEN + 1];
};

struct prov_pin {
	struct prov_identity	 ident;
	char			 records_digest[DIGEST_STR_LEN + 1];
};

int	 prov_records_parse(const void *, size_t, size_t,
	    struct json_value **, struct prov_error *);
int	 prov_records_digest(const struct json_value *, size_t,
	    char[DIGEST_STR_LEN + 1], struct prov_error *);
int	 prov_records_canonical(const struct json_value *, size_t, char **,
	    size_t *, char[DIGEST_STR_LEN + 1], struct prov_error *);
int	 prov_seed_derive(const char *, const char *, uint32_t *,
	    struct prov_error *);
int	 prov_source_digest(const char *, const char *,
	    const struct json_value *, char[DIGEST_STR_LEN + 1],
	    struct prov_error *);
int	 prov_binding_pin(const struct prov_identity *,
	    const struct json_value *, size_t, struct prov_pin *,
	    struct prov_error *);
int	 prov_pin_json(const struct prov_pin *, char **, size_t *);
int	 prov_seal_invoke(const struct prov_identity *, const char *,
	    const struct json_value *, char **, size_t *, struct prov_error *);
int	 prov_seal_section(const struct prov_identity *,
	    const struct json_value *, size_t, const char *,
	    const struct json_value *, char **, size_t *,
	    struct prov_error *);

/* ---- node.c: the node command line (design.md §5) ---------------------- */
#define PROV_NODE_FLAG_MAX	48
#define PROV_NODE_PROBE_MAX	512
#define PROV_NODE_ARGV_MAX	10
/* The driver's argument in a pooled sandbox (driver.mjs). */
#define PROV_DRIVER_POOLED	"pooled"

/* permission: --permission or --experimental-permission; vm_modules:
 * --experimental-vm-modules, or "" when vm.SourceTextModule is built in. */
struct prov_node {
	char	 version[PROV_NODE_FLAG_MAX];
	char	 permission[PROV_NODE_FLAG_MAX];
	char	 vm_modules[PROV_NODE_FLAG_MAX];
};

size_t	 prov_node_probe_argv(const char *, const char **, size_t);
int	 prov_node_probe_parse(const char *, size_t, struct prov_node *,
	    struct prov_error *);
int	 prov_node_probe(const char *, struct prov_node *,
	    struct prov_error *);
size_t	 prov_node_argv(const char *, const struct prov_node *, const char **,
	    size_t);
const char *prov_driver_source(size_t *);

/* ---- blob.c: a snapshot as bytes for the monitor's registry ------------ */
/*
 * "sbxblob1", then big-endian u32 fields: the module count, the entry
 * path (length, bytes), and per module its path and its bytes (length,
 * bytes each).  Decoding refuses (attestation-mismatch) anything but the
 * exact shape; the caller still re-digests what it decoded.
 */
#define PROV_BLOB_MAGIC		"sbxblob1"
#define PROV_BLOB_MAGIC_LEN	8

int	 prov_blob_encode(const struct prov_snapshot *, unsigned char **,
	    size_t *);
int	 prov_blob_decode(const void *, size_t, struct prov_snapshot *,
	    struct prov_error *);

/* ---- judge.c: how a provider run ended (interop.md §P5.5, §P5.6) ------- */
struct prov_outcome {
	const struct launch_exit *exit;		/* IMSG_PR_EXITED */
	uint32_t		 timeout_ms;
	int			 overflow;	/* stdout passed max_output */
	int			 unfinished;	/* stdout never reached EOF */
	const void		*out;		/* stdout, up to max_output */
	size_t			 outlen;
	size_t			 max_output;
	const char		*nonce;
};

/* The driver's error when a result would pass the output cap. */
#define PROV_DRIVER_CAP_ERROR \
	"isolated provider response exceeds the output cap"
int	 prov_run_judge(const struct prov_outcome *, struct json_value **,
	    struct prov_error *);

#endif /* SBX_PROVIDER_H */
