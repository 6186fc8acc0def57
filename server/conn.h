/* Client connections on either port (conn.c: lifetime and output; conn_input.c: input,
 * with conn_text.c, conn_proto.c, conn_commands.c, conn_turns.c and conn_accept.c, which
 * share conn_internal.h). Each owns its input buffer (bounded: one frame or one 4 KiB
 * line) and a bounded output queue: at most SNAPSHOTS_IN_FLIGHT snapshots written plus
 * one pending that a newer snapshot replaces, and replies up to a byte cap past which
 * the connection is dropped. */
#ifndef STEER_CONN_H
#define STEER_CONN_H

#include "server.h"

typedef enum conn_kind {
	CONN_PROTO,
	CONN_TEXT,
} conn_kind;

#define SNAPSHOTS_IN_FLIGHT 2
#define TEXT_MAX_LINE       STEER_CMD_MAX_LINE
#define CONN_HELD_MAX       (64 * 1024)
/* Command time one connection may spend in one turn of the loop: what it sent past
 * that waits for the next turn, so a client pipelining expensive commands cannot
 * hold the tick and every other client until its whole read has run. */
#define CONN_TURN_BUDGET_NS (4u * 1000u * 1000u)
/* Command time all connections together may spend in one turn of the loop: past it,
 * what arrives waits for the next turn, whose timers (the tick first) run before it.
 * Waiting connections are then served least-served first (conn.vtime). */
#define LOOP_TURN_BUDGET_NS (4u * 1000u * 1000u)
/* How far behind the least-served waiting connection one that comes back from idling
 * may be: the credit an idle client keeps, so that it can never starve the others. */
#define CONN_VTIME_SLACK_NS (20u * 1000u * 1000u)
/* A connection without the token, on a server that has one, is charged this many
 * times its command time: it gets a smaller share when others want the loop. */
#define CONN_UNTRUSTED_WEIGHT 4u
/* Turns the token's holders, served first, may take in a row while connections
 * without it wait: those get at least every fourth. */
#define CONN_HOLDER_STREAK 3u
/* A turn at most this long (as last charged), of a connection that may change the
 * world, may run once in each turn of the loop even when the loop's command time is
 * spent: a `stats` does not wait for another's 15 ms `list` to be paid back. */
#define CONN_CHEAP_TURN_NS (500u * 1000u)
/* Snapshots written and not yet known to be taken by the peer, remembered each. */
#define UNTAKEN_MAX 16

/* A snapshot written: where it ends in the stream and when it was written. */
typedef struct written_mark {
	uint64_t end;
	uint64_t ms;
} written_mark;

struct conn {
	uv_tcp_t tcp;
	server *srv;
	conn_kind kind;
	bool web; /* a browser's: its protobuf stream relayed from a WebSocket (web.h) */
	uint64_t id;
	char peer[64];
	auth_addr addr;                /* the peer's address, as the auth guard counts it */
	auth_count auth;               /* wrong tokens on this connection */
	char name[STEER_NAME_MAX + 1]; /* the name command or Hello.client; "" = unnamed */
	conn *prev, *next;
	bool closing;
	bool welcomed;
	bool may_write; /* false until the token is presented, when the server has one */
	bool may_watch; /* false until then on a --private server */
	/* A whole message read; a text reply written; a snapshot taken by the peer (or
	 * written when it had taken all before). */
	uint64_t last_active_ms;
	char finish_why[96];       /* why conn_finish is closing it, for the log */
	uint64_t linger_until_ms;  /* its side shut, reading what the peer still sends */
	size_t lingered_bytes;     /* read and dropped meanwhile */
	steer_framer framer;       /* CONN_PROTO */
	steer_view view;           /* CONN_PROTO */
	steer_compact_req compact; /* CONN_PROTO: compact snapshots asked for */
	bool dense_last;           /* CONN_PROTO: the last one offered was density */
	int snapshots_in_flight;   /* CONN_PROTO */
	sbuf *pending;             /* CONN_PROTO: newest snapshot not yet written */
	cframe *pending_frame;     /* its compact frame, or NULL */
	uint64_t pending_base;     /* the frame seq it is a delta on (0: none) */
	/* CONN_PROTO: the last compact frame handed to uv_write. TCP delivers in order,
	 * so this is what the client will hold when it reads the next one. */
	cframe *base;
	uint64_t snapshots_sent, snapshots_replaced;
	uint64_t served_tick; /* CONN_PROTO: the snapshot tick it was last offered one */
	size_t reply_queued;  /* bytes of replies queued, not yet written to the kernel */
	/* CONN_PROTO: what the peer has taken. Writes complete into kernel buffers whether
	 * it reads or not; what has left the send queue it has. */
	uint64_t bytes_written; /* every byte handed to uv_write */
	written_mark untaken[UNTAKEN_MAX];
	size_t nuntaken;
	char line[TEXT_MAX_LINE + 1]; /* CONN_TEXT */
	size_t line_len;
	/* A job (jobs.h) runs for this connection: nothing more is run until its reply;
	 * what arrives meanwhile waits in held (owned), up to CONN_HELD_MAX, past which
	 * reading stops until the reply. */
	bool busy;
	bool deferred; /* busy only because its turn's budget is spent (not a job) */
	/* Command time charged to it (weighted), for the order waiting connections are
	 * served in: the least served first. */
	uint64_t vtime;
	/* The weighted command time of its last turn, once it has had one (costed): what
	 * its next is expected to cost. */
	uint64_t last_cost;
	bool costed;
	/* A command that waits for the journal's checkpoint to end (journal_busy): run
	 * again from here, with its words (owned) staged again, by conn_resume_deferred. */
	bool retry, retrying;
	steer_command retry_cmd;
	uint32_t retry_rid;
	char *retry_words;
	size_t retry_len;
	bool read_stopped; /* held is full: restarted once it is worked off */
	bool peer_done;    /* the peer ended its side meanwhile: closed after the reply */
	char *held;
	size_t held_len, held_cap;
};

/* Accepts one connection from listener; refuses it politely when the server is full. */
void conn_accept(server *s, uv_stream_t *listener, conn_kind kind);
/* Takes sock, one end of a socket pair whose other end relays a browser's WebSocket
 * (web_relay.c), as a protobuf connection from peer. False when it could not (logged;
 * sock is then still the caller's to close). */
bool conn_adopt(server *s, uv_os_sock_t sock, const struct sockaddr_storage *peer);
/* "proto", "cmd" or "web", for the log. */
const char *conn_kind_name(const conn *c);
/* Queues bytes. Returns false (and closes the connection) past the queue cap. */
bool conn_send_copy(conn *c, const char *data, size_t len);
/* Queues shared bytes that must arrive (a Geometry message), like a reply: a snapshot
 * still waiting, encoded before them, is dropped. False (and the connection closed)
 * past the queue caps. */
bool conn_send_shared(conn *c, sbuf *b);
/* Offers a shared snapshot; it is written now, or kept as the pending one. A compact
 * snapshot comes with its frame and the seq of the base it was encoded on. */
void conn_offer_snapshot(conn *c, sbuf *snap, cframe *frame, uint64_t base_seq);
/* Flushes what is queued, then closes. */
void conn_finish(conn *c, const char *why);
/* Closes a connection that conn_finish left lingering (server_linger_check). */
void conn_end_linger(conn *c);
/* Closes at once. */
void conn_close(conn *c, const char *why);
/* The reply to a command jobs_start took for c: sent (request_id for a protobuf
 * client), announced like any command's, and then c reads and runs what it sent
 * meanwhile. */
void conn_job_done(conn *c, const steer_command *cmd, uint32_t request_id,
                   const steer_reply *reply);
/* How long the oldest snapshot written to c and not yet taken by its peer has been
 * waiting; 0 when it has taken them all. */
uint64_t conn_untaken_ms(conn *c);
/* Lets go of the snapshot waiting to be written and of the compact base (the next
 * snapshot is then a key frame): the global snapshot memory cap is reached. */
void conn_drop_waiting_snapshot(conn *c);
/* Tells every protobuf client but skip (NULL: none) that who did what, and logs it. */
void conn_announce(server *s, const conn *skip, const char *who, const char *what);
/* Closes the connection if it has been idle past --idle-timeout, saying why: for a
 * protobuf client, also when it has taken no snapshot for that long. */
void conn_check_idle(conn *c, uint64_t now_ms);
/* Runs what the connections whose turn's budget was spent sent meanwhile, each again
 * within its budget; false once none is left waiting. */
/* Runs what waits, least served first, while the loop's turn has time. True while
 * some still wait; *ran whether any ran (none: all wait for the budget or the
 * journal, and the loop may nap). */
bool conn_resume_deferred(server *s, bool *ran);
/* Grants full access after a correct token. */
void conn_grant(conn *c);
/* Who the connection is, for notices and the log: its name, or "client 3 (127.0.0.1)". */
void conn_display_name(const conn *c, char *out, size_t n);

/* Between conn.c (a connection's lifetime and output) and the files of its input
 * (conn_internal.h: frames and lines, the commands they carry, the turns that share the
 * loop, new connections). */
/* Whether a connection's coming or going may be logged now (at most
 * CHURN_LOG_PER_SEC a second). */
bool conn_churn_log_ok(server *s);
/* Forgets the snapshots the peer has taken; taking one is activity. */
void conn_note_taken(conn *c);

#endif
