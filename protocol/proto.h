/* proto.h — the wire protocol between the mcalltree client and the agent:
 * framing, message schemas and their strict validation, shared by both sides.
 * The format is documented in protocol/PROTOCOL.md; keep the two in step.
 *
 * A frame is an 8-byte header ('M','C','T', version, payload length as u32
 * big-endian) followed by one UTF-8 JSON object, or, in a session that
 * asked for them, a compact call record (call.h). Every decoded message is
 * validated against the schema of its "type" before anyone looks at it. */
#ifndef MCT_PROTO_H
#define MCT_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "buf.h"
#include "err.h"

#define PROTO_VERSION 1
#define PROTO_HEADER_LEN 8
/* Payload caps: what a client may send, what an agent may send. */
#define PROTO_MAX_REQUEST ((size_t)64 * 1024)
#define PROTO_MAX_REPLY ((size_t)64 * 1024 * 1024)
/* A client that accepts no byte of the agent's messages for this long loses
 * its session: the agent ends it and restores the classes. */
#define PROTO_STALL_S 3
/* Deepest trace a request may ask for; also bounds the nesting of call trees. */
#define PROTO_MAX_DEPTH 64

/* The agent's socket: PROTO_SOCKET_DIR_FMT formatted with the JVM's /tmp and
 * its pid in its own namespace, then "/" PROTO_SOCKET_NAME. The directory has
 * mode 0700 and belongs to the JVM's user. */
#define PROTO_SOCKET_DIR_FMT "%s/.mcalltree-%ld"
#define PROTO_SOCKET_NAME "agent.sock"

/* Who sent a message: requests come from the client, replies from the agent. */
enum proto_dir {
    PROTO_REQUEST,
    PROTO_REPLY
};

/* The "code" of an `error` message. */
enum proto_code {
    PROTO_ERR_BUSY,                   /* another session is running */
    PROTO_ERR_CLASS_NOT_LOADED,       /* the entry class is not loaded */
    PROTO_ERR_METHOD_NOT_FOUND,       /* no such method in the entry class */
    PROTO_ERR_BAD_REGEX,              /* the regex does not compile */
    PROTO_ERR_NOTHING_INSTRUMENTABLE, /* the plan holds no rewritable method */
    PROTO_ERR_BAD_REQUEST,            /* valid message, wrong at this point */
    PROTO_ERR_PROTOCOL,               /* malformed or oversized frame */
    PROTO_ERR_UNSUPPORTED,            /* not implemented by this agent */
    PROTO_ERR_INTERNAL,               /* a bug or a JVMTI failure */
    PROTO_ERR_DENIED,                 /* the peer's uid may not use the agent */
    PROTO_ERR_PLAN_LIMIT,             /* planning hit a bound (regex work, time) */
    PROTO_ERR_COUNT
};

/* What Agent_OnAttach/Agent_OnLoad return besides 0; the client reads them
 * from the attach reply ("return code: N"). */
enum proto_agent_rc {
    PROTO_RC_OK = 0,
    PROTO_RC_OPTIONS = 101,      /* the options string is invalid */
    PROTO_RC_JVMTI = 102,        /* JVMTI/JNI setup failed (see the JVM's stderr) */
    PROTO_RC_UNSAFE_DIR = 103,   /* the socket directory is not safe to use */
    PROTO_RC_SOCKET = 104,       /* the listening socket could not be set up */
    PROTO_RC_OTHER_AGENT = 105   /* another copy of the agent already serves */
};

/* The stable name of an error code ("busy", ...). */
const char *proto_code_name(enum proto_code code);

/* The code named s, or -1 for a name this side does not know. */
int proto_code_from_name(const char *s);

/* The code of the `error` the agent sends for a failure of mct_err code
 * mct_code (MCT_E_NO_CLASS -> class_not_loaded, ...; internal for codes that
 * are not a refusal). */
enum proto_code proto_code_of_err(int mct_code);

/* The client's exit status for an `error` with code (PROTOCOL.md): 3 (the
 * request was refused), 2 (denied), else 5. The numbers are SPEC §2's
 * (client/exit.h). */
int proto_code_exit(enum proto_code code);

/* Writes the header of a frame whose payload has len bytes. */
void proto_header_encode(unsigned char hdr[PROTO_HEADER_LEN], uint32_t len);

/* Checks a received header and stores the payload length in *len; -1 with e
 * set (MCT_E_PROTO bad magic or empty payload, MCT_E_UNSUPPORTED other
 * version, MCT_E_TOOBIG over the cap of dir). */
int proto_header_decode(const unsigned char hdr[PROTO_HEADER_LEN], enum proto_dir dir,
                        uint32_t *len, mct_err *e);

/* Parses a payload of len bytes and validates it as a message of direction
 * dir; returns a new reference (caller decrefs) or NULL with e set. */
json_t *proto_parse(const char *payload, size_t len, enum proto_dir dir, mct_err *e);

/* Decodes exactly one whole frame of n bytes (header and payload, nothing
 * after); returns a new reference or NULL with e set. Pure, no I/O. */
json_t *proto_decode(const void *frame, size_t n, enum proto_dir dir, mct_err *e);

/* Checks msg against the schema of its type for direction dir; 0 or -1 with
 * e set (MCT_E_PROTO) naming the offending key. */
int proto_validate(const json_t *msg, enum proto_dir dir, mct_err *e);

/* The "type" of a message that passed proto_validate (borrowed from msg). */
const char *proto_type(const json_t *msg);

/* For msg.c, which gives them their types (use msg.h): the struct at m as
 * a new message of type and direction dir, in the order of its schema, or
 * NULL (out of memory, a string not UTF-8); and msg, checked with
 * proto_validate and of that type, into the struct at m of size bytes: 0,
 * or -1 with e set. The struct's arrays are then the caller's to free. */
json_t *proto_msg_write(const char *type, enum proto_dir dir, const void *m);
int proto_msg_read(const json_t *msg, const char *type, enum proto_dir dir, void *m, size_t size,
                   mct_err *e);

/* Renders msg compactly and writes it as one frame to fd; 0 or -1 with e set.
 * Retries on EINTR and short writes; on sockets a closed peer is EPIPE, never
 * SIGPIPE. */
int proto_write(int fd, const json_t *msg, mct_err *e);

/* proto_write without blocking on a socket: the peer must take a byte at
 * least every stall_ms (>= 0), and the whole frame within total_ms when
 * total_ms > 0; else -1 with e set (MCT_E_IO). */
int proto_write_within(int fd, const json_t *msg, long long stall_ms, long long total_ms, mct_err *e);

/* Writes an already rendered JSON payload of len bytes as one frame; the
 * caller guarantees it is a valid message. 0 or -1 with e set. */
int proto_write_payload(int fd, const char *json, size_t len, mct_err *e);

/* Reads one frame from fd within timeout_ms (< 0: no limit) and returns the
 * validated message (caller decrefs), or NULL with e set: MCT_E_EOF when the
 * peer closed before the first byte, MCT_E_CUT when it closed within a
 * frame, MCT_E_IO on errors and timeouts, MCT_E_PROTO / MCT_E_TOOBIG /
 * MCT_E_UNSUPPORTED for bad frames. Interrupted system calls are retried. */
json_t *proto_read(int fd, enum proto_dir dir, int timeout_ms, mct_err *e);

/* proto_read's frame, its payload not parsed: a malloc'd copy of its *len
 * bytes (the caller frees it), or NULL with e set as proto_read sets it
 * (a payload of 0 bytes is MCT_E_PROTO). */
char *proto_read_payload(int fd, enum proto_dir dir, int timeout_ms, uint32_t *len, mct_err *e);


/* Writes len bytes of whole frames (already framed: call.h) to fd, as
 * proto_write_within writes one; 0 or -1 with e set. */
int proto_write_frames_within(int fd, const void *frames, size_t len, long long stall_ms, long long total_ms,
                              mct_err *e);

/* A reader of many frames per read(2), for a stream of replies; the caller
 * zero-initialises it and frees it with proto_rbuf_free. */
typedef struct proto_rbuf {
    mct_buf buf;                /* what was read */
    size_t start;               /* the bytes not taken yet are buf.data[start..buf.len) */
} proto_rbuf;

/* Reads once what fd holds (it is readable): 1 when bytes came, 0 at the
 * end of the stream (e set: MCT_E_EOF between frames, MCT_E_CUT within
 * one, naming what is missing), -1 with e set (MCT_E_IO, MCT_E_NOMEM).
 * EINTR and EAGAIN count as 1 with no byte. */
int proto_rbuf_fill(proto_rbuf *b, int fd, enum proto_dir dir, mct_err *e);

/* The next whole frame held: 1 with its payload at *payload (valid until
 * the next fill) and *len bytes long; 0 when no whole frame is held yet;
 * -1 with e set for a bad header (proto_header_decode). */
int proto_rbuf_next(proto_rbuf *b, enum proto_dir dir, const unsigned char **payload, uint32_t *len,
                    mct_err *e);

/* Bytes held of a frame not whole yet. */
size_t proto_rbuf_held(const proto_rbuf *b);

void proto_rbuf_free(proto_rbuf *b);

/* 1 if s is a binary class name with dots (com.shop.Cart$Line), else 0. */
int proto_class_name_valid(const char *s);

/* 1 if s is a JVM method name (no . ; [ / < >, except <init> and <clinit>). */
int proto_method_name_valid(const char *s);

/* 1 if s is a JVM method descriptor such as (I[Ljava/lang/String;)V. */
int proto_method_desc_valid(const char *s);

/* 1 if the n bytes at s are valid UTF-8 without NUL bytes. */
int proto_utf8_valid(const char *s, size_t n);

/* Replaces, in place, every byte of the string s that does not belong to a
 * valid UTF-8 sequence by '?', so that it can go into a JSON string. */
void proto_utf8_sanitize(char *s);

#endif
