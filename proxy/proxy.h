/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * proxy.h: the one header of sbx-proxy.
 *
 * host.c, addr.c, policy.c, http.c and chunk.c are pure: no I/O, no
 * allocation, no global state, so each is unit tested and fuzzed alone.
 * server.c, conn.c and proto.c are the libevent side.
 */
#ifndef SBX_PROXY_H
#define SBX_PROXY_H

#include <sys/types.h>
#include <sys/socket.h>

#include <netinet/in.h>

#include <stddef.h>
#include <stdint.h>

#include "common.h"
#include "proto.h"

/* ---- addr.c: one address and what kind it is --------------------------- */
struct proxy_addr {
	uint8_t		 af;		/* AF_INET or AF_INET6 */
	uint8_t		 a[16];		/* network order; IPv4 in a[0..3] */
};

/*
 * What an address is, when it is not an ordinary public unicast address.
 * addr_class returns NULL for a public address, or the reason to refuse
 * it ("loopback", "private (RFC 1918)", ...).  IPv6 forms that carry an
 * IPv4 address (mapped, compatible, NAT64, 6to4) are refused when the
 * IPv4 address inside would be.
 */
const char	*addr_class(const struct proxy_addr *);
/* Mapped ::ffff:a.b.c.d becomes a.b.c.d: the kernel sends it there. */
void		 addr_unmap(struct proxy_addr *);
int		 addr_in_prefix(const struct proxy_addr *,
		    const struct proxy_addr *net, unsigned int prefixlen);
int		 addr_equal(const struct proxy_addr *, const struct proxy_addr *);
/* "1.2.3.4" or "2001:db8::1" (no brackets); buf of ADDR_STRLEN. */
#define ADDR_STRLEN	46
const char	*addr_str(const struct proxy_addr *, char *, size_t);
int		 addr_from_sa(struct proxy_addr *, const struct sockaddr *);
socklen_t	 addr_to_sa(const struct proxy_addr *, uint16_t port,
		    struct sockaddr_storage *);

/* ---- host.c: the canonical host of a request --------------------------- */
#define HOST_NAME_MAX_LEN	253	/* RFC 1035, without the final dot */
#define HOST_LABEL_MAX		63

enum host_kind {
	HOST_NAME = 1,			/* a DNS name, canonical */
	HOST_ADDR			/* an IP literal in any spelling */
};

struct proxy_host {
	enum host_kind	 kind;
	/* Lower case, one trailing dot removed; for HOST_ADDR the
	 * address in its canonical text. */
	char		 name[HOST_NAME_MAX_LEN + 1];
	struct proxy_addr addr;		/* HOST_ADDR */
};

/*
 * Canonicalise a host as it appears in an authority (no port): a name,
 * an IPv4 literal in any inet_aton spelling (127.1, 2130706433, 0x7f.1,
 * 0177.0.0.1) or a bracketed IPv6 literal.  0, or -1 with *why naming
 * what is wrong.  Non-ASCII (unencoded IDN) hosts are refused: a name
 * must arrive as its punycode A-labels, which is what the rules hold.
 */
int	 host_canon(const char *, size_t, struct proxy_host *, const char **why);
/* "host[:port]" with a default port; "[v6]:port".  0 or -1 and *why. */
int	 host_authority(const char *, size_t, uint16_t defport,
	    struct proxy_host *, uint16_t *port, const char **why);
/* inet_aton's forms, strictly: 1 to 4 parts, each decimal, octal (0...)
 * or hex (0x...), the last filling what is left.  0 or -1. */
int	 host_parse_v4(const char *, size_t, struct proxy_addr *);
int	 host_parse_v6(const char *, size_t, struct proxy_addr *);

/* ---- policy.c: one sandbox's rules, as it had them at start ------------ */
#define POLICY_RULES_MAX	PROXY_RULES_MAX

struct policy_domain {
	char		 host[HOST_NAME_MAX_LEN + 1];	/* lower case */
	uint8_t		 wildcard;	/* "*.": strictly below host */
	uint16_t	 port;		/* 0: any */
};

struct policy_cidr {
	struct proxy_addr net;
	uint8_t		 prefixlen;
};

struct proxy_policy {
	struct policy_domain	 allow[POLICY_RULES_MAX];
	size_t			 nallow;
	struct policy_domain	 deny[POLICY_RULES_MAX];
	size_t			 ndeny;
	struct policy_cidr	 cidr[POLICY_RULES_MAX];
	size_t			 ncidr;
};

#define POLICY_WHY_MAX		320

/*
 * Each returns 1 (allowed) or 0 (refused) and writes the rule that
 * decided, or the reason, to why: e.g. "deny-domain \"x.example\"",
 * "no allow-domain matches \"a.example:80\"".
 */
int	 policy_name(const struct proxy_policy *, const char *host,
	    uint16_t port, char *why, size_t);
/* An IP literal: only through allow-cidr. */
int	 policy_literal(const struct proxy_policy *, const struct proxy_addr *,
	    char *why, size_t);
/* A resolved address: refused when addr_class says so or it is one of
 * the host's own addresses (own, nown), unless an allow-cidr covers it. */
int	 policy_resolved(const struct proxy_policy *, const struct proxy_addr *,
	    const struct proxy_addr *own, size_t nown, char *why, size_t);
int	 policy_cidr_covers(const struct proxy_policy *,
	    const struct proxy_addr *, char *rule, size_t);
/* Parse "a.b:80", "*.x.y" and "10.0.0.0/8" the way sbx.conf does (tests,
 * the test helper); 0 or -1 with *why. */
int	 policy_add_domain(struct proxy_policy *, int deny, const char *,
	    const char **why);
int	 policy_add_cidr(struct proxy_policy *, const char *, const char **why);

/* ---- http.c: request and response heads -------------------------------- */
#define HTTP_LINE_MAX		8192	/* request line, or one header line */
#define HTTP_HEAD_MAX		32768	/* all of the head */
#define HTTP_HDRS_MAX		100	/* header fields */

enum http_method {
	HTTP_GET = 1, HTTP_HEAD, HTTP_POST, HTTP_PUT, HTTP_PATCH,
	HTTP_DELETE, HTTP_OPTIONS, HTTP_CONNECT
};

enum http_body {
	HTTP_BODY_NONE = 0,
	HTTP_BODY_LENGTH,		/* Content-Length */
	HTTP_BODY_CHUNKED,		/* Transfer-Encoding: chunked */
	HTTP_BODY_CLOSE			/* response: until upstream closes */
};

struct http_field {
	const char	*name;		/* into the caller's buffer */
	size_t		 namelen;
	const char	*value;		/* without surrounding blanks */
	size_t		 valuelen;
	int		 drop;		/* hop-by-hop: not forwarded */
};

struct http_msg {
	/* request */
	enum http_method method;
	const char	*target;	/* origin-form to send upstream */
	size_t		 targetlen;
	struct proxy_host host;
	uint16_t	 port;
	/* response */
	unsigned int	 status;
	/* both */
	unsigned int	 minor;		/* HTTP/1.<minor>, 0 or 1 */
	enum http_body	 body;
	uint64_t	 length;	/* HTTP_BODY_LENGTH */
	int		 keepalive;	/* the connection may carry another */
	size_t		 nfields;
	struct http_field fields[HTTP_HDRS_MAX];
	size_t		 headlen;	/* bytes of the head, CRLFCRLF incl. */
};

#define HTTP_WHY_MAX		160
struct http_error {
	unsigned int	 status;	/* 400, 405, 414, 431, 501, 502 */
	char		 why[HTTP_WHY_MAX];
};

/*
 * How many bytes of buf make up the head: > 0 when the empty line that
 * ends it is there, 0 when more is needed (and allowed by the caps), -1
 * when the caps are already exceeded (err says which).
 */
ssize_t	 http_head_len(const char *buf, size_t len, struct http_error *);
/* Parse a complete head of exactly len bytes (http_head_len's answer).
 * 0, or -1 with err. Pointers in msg point into buf. */
int	 http_parse_request(const char *buf, size_t len, struct http_msg *,
	    struct http_error *);
/* A response to req_method; 1xx interim answers are parsed like any
 * other (their body is none). */
int	 http_parse_response(const char *buf, size_t len,
	    enum http_method req_method, struct http_msg *,
	    struct http_error *);
/* The heads sent on: origin-form, hop-by-hop fields dropped, Host from
 * the checked authority, Via added.  Their length, or 0 when they do not
 * fit in len. */
size_t	 http_build_request(const struct http_msg *, char *, size_t);
size_t	 http_build_response(const struct http_msg *, int close, char *,
	    size_t);
const char	*http_method_name(enum http_method);
const char	*http_reason(unsigned int status);

/* ---- chunk.c: a chunked body, checked as it passes ---------------------- */
#define CHUNK_LINE_MAX		1024	/* size line with extensions; trailer */
#define CHUNK_TRAILER_MAX	8192	/* all trailer lines */

struct chunk_dec {
	int		 state;
	uint64_t	 remain;	/* data bytes left in this chunk */
	size_t		 linelen;	/* current size or trailer line */
	size_t		 trailer;	/* trailer bytes so far */
	unsigned int	 digits;
	int		 ext;		/* in an extension */
	int		 sawcr;
};

void	 chunk_init(struct chunk_dec *);
/*
 * Feed len bytes.  Returns how many belong to the body (== len unless
 * the body ended within them: then *done is set and the rest is the
 * next message), or -1 with *why.
 */
ssize_t	 chunk_feed(struct chunk_dec *, const uint8_t *, size_t, int *done,
	    const char **why);

/* ---- the server: sandbox.c, listener.c, conn.c, dns.c, audit.c ----- */
#include <sys/queue.h>

struct event_base;
struct evdns_base;
struct evconnlistener;
struct proxy_conn;

struct proxy_limits {
	uint32_t	 max_conns;
	uint32_t	 header_ms;
	uint32_t	 idle_ms;
	uint32_t	 connect_ms;
	uint32_t	 io_ms;
};

struct proxy_listener {
	TAILQ_ENTRY(proxy_listener) entry;
	struct proxy_sandbox	*sb;
	struct evconnlistener	*lev;
};

struct proxy_sandbox {
	TAILQ_ENTRY(proxy_sandbox) entry;
	uint32_t		 id;
	uint32_t		 uid;
	uint32_t		 flags;		/* PROXY_F_* */
	struct proxy_limits	 lim;
	struct proxy_policy	*policy;
	TAILQ_HEAD(, proxy_listener) listeners;
	TAILQ_HEAD(, proxy_conn) conns;
	unsigned int		 nconns;
};

/* sandbox.c: the table of sandboxes and the monitor's messages. */
struct imsgbuf;
struct imsg;
void	 sandbox_imsg_policy(struct imsgbuf *, struct imsg *);
void	 sandbox_imsg_rule(struct imsgbuf *, struct imsg *);
void	 sandbox_imsg_policy_end(struct imsgbuf *, struct imsg *);
void	 sandbox_imsg_listen(struct imsgbuf *, struct imsg *);
void	 sandbox_imsg_end(struct imsgbuf *, struct imsg *);
void	 sandbox_imsg_stats(struct imsgbuf *, struct imsg *);
struct proxy_sandbox *sandbox_find(uint32_t);

/* listener.c */
int	 listener_add(struct proxy_sandbox *, int fd, char *err, size_t);
void	 listener_free(struct proxy_listener *);

/* conn.c */
void	 conn_accept(struct proxy_sandbox *, int fd, const struct sockaddr *);
void	 conn_free(struct proxy_conn *);
void	 conn_end(struct proxy_conn *);	/* its sandbox ended */
/* Queue the TUNNELs and STATS that answer a STATS_REQ: every sandbox's
 * from the first on (TAILQ_NEXT(, entry)). */
void	 conn_status(struct imsgbuf *, uint32_t seq, struct proxy_sandbox *);

/* splice.c: a tunnel's bytes moved by the kernel (splice through a pipe
 * per direction).  done(arg, NULL) when both directions ended, or with
 * what failed; the callback frees the relay (relay_free). */
struct relay;
typedef void	(*relay_done_cb)(void *, const char *);
struct relay	*relay_new(int cfd, int ufd, uint64_t *up, uint64_t *down,
		    uint64_t *last_io, relay_done_cb, void *);
void		 relay_start(struct relay *);
void		 relay_free(struct relay *);

/* dns.c: set up before the privilege file; then lookups. */
void	 resolve_init(struct event_base *);
struct evdns_base *resolve_base(void);
const struct proxy_addr *resolve_own(size_t *);

/* audit.c: one line per decision. */
struct proxy_decision {
	const char	*method;
	const char	*host;
	uint16_t	 port;
	const char	*addr;		/* connected to, or NULL */
	int		 allowed;
	unsigned int	 status;
	const char	*reason;
	uint64_t	 up, down;
	uint64_t	 ms;
};
void	 audit_init(struct imsgbuf *);
void	 audit_decision(const struct proxy_sandbox *,
	    const struct proxy_decision *);

#endif /* SBX_PROXY_H */
