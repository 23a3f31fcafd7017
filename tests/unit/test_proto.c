/* test_proto.c — the protocol module: frames, schemas, every class of
 * malformed input, and the fd helpers over a socketpair. */
#include "check.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "msg.h"
#include "proto.h"

/* A frame holding payload (n bytes) behind a valid header; caller frees. */
static unsigned char *frame_n(const char *payload, size_t n, size_t *len)
{
    unsigned char *f = malloc(PROTO_HEADER_LEN + n);

    proto_header_encode(f, (uint32_t)n);
    memcpy(f + PROTO_HEADER_LEN, payload, n);
    *len = PROTO_HEADER_LEN + n;
    return f;
}

/* Decodes a frame around payload; returns the error code (MCT_OK if valid)
 * and leaves the message in e->msg. */
static int decode(const char *payload, enum proto_dir dir, mct_err *e)
{
    size_t len;
    unsigned char *f = frame_n(payload, strlen(payload), &len);
    json_t *m;

    mct_err_clear(e);
    m = proto_decode(f, len, dir, e);
    free(f);
    if (m == NULL)
        return e->code;
    json_decref(m);
    return MCT_OK;
}

/* Expects payload to be rejected with code and a message containing part. */
#define REJECT(payload, dir, code, part)                                       \
    do {                                                                       \
        mct_err e_;                                                            \
        CHECK_INT(decode((payload), (dir), &e_), (code));                      \
        if (strstr(e_.msg, (part)) == NULL) {                                  \
            fprintf(stderr, "%s:%d: message \"%s\" lacks \"%s\"\n", __FILE__,  \
                    __LINE__, e_.msg, (part));                                 \
            check_failures++;                                                  \
        }                                                                      \
    } while (0)

#define ACCEPT(payload, dir)                                                   \
    do {                                                                       \
        mct_err e_;                                                            \
        int rc_ = decode((payload), (dir), &e_);                               \
        if (rc_ != MCT_OK) {                                                   \
            fprintf(stderr, "%s:%d: rejected: %s\n", __FILE__, __LINE__,       \
                    e_.msg);                                                   \
            check_failures++;                                                  \
        }                                                                      \
    } while (0)

#define TRACE_OK "{\"type\":\"trace\",\"protocol\":1,\"class\":\"com.shop.Cart\"," \
    "\"method\":\"total\",\"desc\":null,\"depth\":3,\"regex\":\"com\\\\.shop\\\\..*\"," \
    "\"include_jdk\":false,\"plan_only\":false,\"min_ns\":0,\"count\":0," \
    "\"verbose\":false,\"client_pid\":42"

static void test_header(void)
{
    unsigned char h[PROTO_HEADER_LEN];
    uint32_t len = 0;
    mct_err e;

    proto_header_encode(h, 0x01020304);
    CHECK(memcmp(h, "MCT\x01\x01\x02\x03\x04", 8) == 0);
    proto_header_encode(h, 100);
    CHECK_INT(proto_header_decode(h, PROTO_REQUEST, &len, &e), 0);
    CHECK_INT(len, 100);

    proto_header_encode(h, (uint32_t)PROTO_MAX_REQUEST);
    CHECK_INT(proto_header_decode(h, PROTO_REQUEST, &len, &e), 0);
    proto_header_encode(h, (uint32_t)PROTO_MAX_REQUEST + 1);
    CHECK_INT(proto_header_decode(h, PROTO_REQUEST, &len, &e), -1);
    CHECK_INT(e.code, MCT_E_TOOBIG);
    CHECK_INT(proto_header_decode(h, PROTO_REPLY, &len, &e), 0);
    proto_header_encode(h, (uint32_t)PROTO_MAX_REPLY + 1);
    CHECK_INT(proto_header_decode(h, PROTO_REPLY, &len, &e), -1);
    CHECK_INT(e.code, MCT_E_TOOBIG);
    proto_header_encode(h, 0xffffffffu);
    CHECK_INT(proto_header_decode(h, PROTO_REPLY, &len, &e), -1);
    CHECK_INT(e.code, MCT_E_TOOBIG);

    proto_header_encode(h, 0);
    CHECK_INT(proto_header_decode(h, PROTO_REQUEST, &len, &e), -1);
    CHECK(strstr(e.msg, "empty payload") != NULL);

    proto_header_encode(h, 10);
    h[0] = 'X';
    CHECK_INT(proto_header_decode(h, PROTO_REQUEST, &len, &e), -1);
    CHECK_INT(e.code, MCT_E_PROTO);
    CHECK(strstr(e.msg, "bad magic") != NULL);

    proto_header_encode(h, 10);
    h[3] = 2;
    CHECK_INT(proto_header_decode(h, PROTO_REQUEST, &len, &e), -1);
    CHECK_INT(e.code, MCT_E_UNSUPPORTED);
    CHECK(strstr(e.msg, "protocol version 2") != NULL);
}

static void test_frames(void)
{
    static const char hello[] = "{\"type\":\"hello\",\"protocol\":1,\"client\":\"0.1.0\"}";
    unsigned char *f;
    size_t len;
    json_t *m;
    mct_err e;

    f = frame_n(hello, strlen(hello), &len);
    m = proto_decode(f, len, PROTO_REQUEST, &e);
    CHECK(m != NULL);
    if (m != NULL) {
        CHECK_STR(proto_type(m), "hello");
        json_decref(m);
    }
    for (size_t n = 0; n < PROTO_HEADER_LEN; n++) {
        CHECK(proto_decode(f, n, PROTO_REQUEST, &e) == NULL);
        CHECK(strstr(e.msg, "truncated header") != NULL);
    }
    CHECK(proto_decode(f, len - 1, PROTO_REQUEST, &e) == NULL);
    CHECK(strstr(e.msg, "truncated payload") != NULL);
    free(f);

    /* A byte after the frame. */
    f = frame_n(hello, strlen(hello), &len);
    f = realloc(f, len + 1);
    f[len] = ' ';
    CHECK(proto_decode(f, len + 1, PROTO_REQUEST, &e) == NULL);
    CHECK(strstr(e.msg, "after the end of the frame") != NULL);
    free(f);
}

static void test_json(void)
{
    REJECT("{\"type\":\"hello\"", PROTO_REQUEST, MCT_E_PROTO, "invalid JSON");
    REJECT("not json", PROTO_REQUEST, MCT_E_PROTO, "invalid JSON");
    REJECT("[1,2]", PROTO_REQUEST, MCT_E_PROTO, "must be a JSON object, got an array");
    REJECT("1", PROTO_REQUEST, MCT_E_PROTO, "invalid JSON");
    REJECT("\"hello\"", PROTO_REQUEST, MCT_E_PROTO, "invalid JSON");
    REJECT("{\"type\":\"hello\",\"protocol\":1,\"client\":\"\xff\"}", PROTO_REQUEST,
           MCT_E_PROTO, "invalid JSON");
    REJECT("{\"type\":\"hello\",\"protocol\":1,\"client\":\"a\\u0000b\"}", PROTO_REQUEST,
           MCT_E_PROTO, "invalid JSON");
    REJECT("{\"type\":\"hello\",\"type\":\"hello\",\"protocol\":1,\"client\":\"x\"}",
           PROTO_REQUEST, MCT_E_PROTO, "duplicate");
    REJECT("{\"type\":\"hello\",\"protocol\":1,\"client\":\"x\"} {}", PROTO_REQUEST,
           MCT_E_PROTO, "invalid JSON");
    {
        /* A NUL byte inside the payload. */
        static const char p[] = "{\"type\":\"hello\",\"protocol\":1,\"client\":\"x\"}";
        char buf[sizeof p + 1];
        unsigned char *f;
        size_t len;
        mct_err e;

        memcpy(buf, p, sizeof p - 1);
        buf[sizeof p - 1] = '\0';
        f = frame_n(buf, sizeof p, &len);
        CHECK(proto_decode(f, len, PROTO_REQUEST, &e) == NULL);
        free(f);
    }
}

static void test_requests(void)
{
    ACCEPT("{\"type\":\"hello\",\"protocol\":1,\"client\":\"0.1.0\"}", PROTO_REQUEST);
    REJECT("{\"protocol\":1}", PROTO_REQUEST, MCT_E_PROTO, "missing \"type\"");
    REJECT("{\"type\":7}", PROTO_REQUEST, MCT_E_PROTO, "\"type\" must be a string");
    REJECT("{\"type\":\"launch\"}", PROTO_REQUEST, MCT_E_PROTO, "unknown message type");
    REJECT("{\"type\":\"call\"}", PROTO_REQUEST, MCT_E_PROTO, "unknown message type \"call\"");
    REJECT("{\"type\":\"hello\",\"protocol\":2,\"client\":\"x\"}", PROTO_REQUEST, MCT_E_PROTO,
           "protocol: 2 is outside 1..1");
    REJECT("{\"type\":\"hello\",\"protocol\":1}", PROTO_REQUEST, MCT_E_PROTO, "client: missing");
    REJECT("{\"type\":\"hello\",\"protocol\":1,\"client\":\"x\",\"extra\":1}", PROTO_REQUEST,
           MCT_E_PROTO, "unknown key \"extra\"");
    REJECT("{\"type\":\"hello\",\"protocol\":1.0,\"client\":\"x\"}", PROTO_REQUEST, MCT_E_PROTO,
           "must be an integer, got a real number");

    ACCEPT(TRACE_OK "}", PROTO_REQUEST);
    ACCEPT("{\"type\":\"trace\",\"protocol\":1,\"class\":\"a.B$C\",\"method\":\"<init>\","
           "\"desc\":\"(I[Ljava/lang/String;)V\",\"depth\":64,\"regex\":\"\","
           "\"include_jdk\":true,\"plan_only\":true,\"min_ns\":5,\"count\":10,"
           "\"verbose\":true,\"client_pid\":1}", PROTO_REQUEST);
    REJECT(TRACE_OK ",\"x\":1}", PROTO_REQUEST, MCT_E_PROTO, "unknown key \"x\"");
    REJECT("{\"type\":\"trace\",\"protocol\":1,\"class\":\"a.B\",\"method\":\"m\",\"desc\":null,"
           "\"depth\":0,\"regex\":\"x\",\"include_jdk\":false,\"plan_only\":false,\"min_ns\":0,"
           "\"count\":0,\"verbose\":false,\"client_pid\":42}",
           PROTO_REQUEST, MCT_E_PROTO, "depth: 0 is outside 1..64");
    REJECT("{\"type\":\"trace\",\"protocol\":1,\"class\":\"a.B\",\"method\":\"m\",\"desc\":null,"
           "\"depth\":65,\"regex\":\"x\",\"include_jdk\":false,\"plan_only\":false,\"min_ns\":0,"
           "\"count\":0,\"verbose\":false,\"client_pid\":42}",
           PROTO_REQUEST, MCT_E_PROTO, "depth: 65 is outside 1..64");
    REJECT("{\"type\":\"trace\",\"protocol\":1,\"class\":\"a.B\",\"method\":\"m\",\"desc\":null,"
           "\"depth\":\"3\",\"regex\":\"x\",\"include_jdk\":false,\"plan_only\":false,"
           "\"min_ns\":0,\"count\":0,\"verbose\":false,\"client_pid\":42}",
           PROTO_REQUEST, MCT_E_PROTO, "depth: must be an integer, got a string");
    REJECT("{\"type\":\"trace\",\"protocol\":1,\"class\":\"a/B\",\"method\":\"m\",\"desc\":null,"
           "\"depth\":3,\"regex\":\"x\",\"include_jdk\":false,\"plan_only\":false,\"min_ns\":0,"
           "\"count\":0,\"verbose\":false,\"client_pid\":42}",
           PROTO_REQUEST, MCT_E_PROTO, "class: must be a binary class name");
    REJECT("{\"type\":\"trace\",\"protocol\":1,\"class\":\"a.B\",\"method\":\"m\",\"desc\":\"(I\","
           "\"depth\":3,\"regex\":\"x\",\"include_jdk\":false,\"plan_only\":false,\"min_ns\":0,"
           "\"count\":0,\"verbose\":false,\"client_pid\":42}",
           PROTO_REQUEST, MCT_E_PROTO, "desc: length 2 is outside 3..1024");
    REJECT("{\"type\":\"trace\",\"protocol\":1,\"class\":\"a.B\",\"method\":\"m\",\"desc\":\"(I)\","
           "\"depth\":3,\"regex\":\"x\",\"include_jdk\":false,\"plan_only\":false,\"min_ns\":0,"
           "\"count\":0,\"verbose\":false,\"client_pid\":42}",
           PROTO_REQUEST, MCT_E_PROTO, "desc: must be a JVM method descriptor");
    REJECT("{\"type\":\"trace\",\"protocol\":1,\"class\":\"a.B\",\"method\":\"m\",\"desc\":null,"
           "\"depth\":3,\"regex\":\"x\",\"include_jdk\":0,\"plan_only\":false,\"min_ns\":0,"
           "\"count\":0,\"verbose\":false,\"client_pid\":42}",
           PROTO_REQUEST, MCT_E_PROTO, "include_jdk: must be true or false, got an integer");
    REJECT("{\"type\":\"trace\",\"protocol\":1,\"class\":\"a.B\",\"method\":\"m\",\"desc\":null,"
           "\"depth\":3,\"regex\":\"x\",\"include_jdk\":false,\"plan_only\":false,\"min_ns\":-1,"
           "\"count\":0,\"verbose\":false,\"client_pid\":42}",
           PROTO_REQUEST, MCT_E_PROTO, "min_ns: -1 is outside");
    REJECT("{\"type\":\"trace\",\"protocol\":1,\"class\":\"a.B\",\"method\":\"a.b\",\"desc\":null,"
           "\"depth\":3,\"regex\":\"x\",\"include_jdk\":false,\"plan_only\":false,\"min_ns\":0,"
           "\"count\":0,\"verbose\":false,\"client_pid\":42}",
           PROTO_REQUEST, MCT_E_PROTO, "method: must be a JVM method name");
    REJECT("{\"type\":\"trace\",\"protocol\":1,\"class\":\"a.B\",\"method\":\"m\",\"desc\":null,"
           "\"depth\":3,\"regex\":\"x\",\"include_jdk\":false,\"plan_only\":false,\"min_ns\":0,"
           "\"count\":0,\"verbose\":false}",
           PROTO_REQUEST, MCT_E_PROTO, "client_pid: missing");
    REJECT("{\"type\":\"trace\",\"protocol\":1,\"class\":\"a.B\",\"method\":\"m\",\"desc\":null,"
           "\"depth\":3,\"regex\":\"x\",\"include_jdk\":false,\"plan_only\":false,"
           "\"min_ns\":99999999999999999999,\"count\":0,\"verbose\":false,\"client_pid\":1}",
           PROTO_REQUEST, MCT_E_PROTO, "invalid JSON");

    /* aggregate, interval_ms and slowest are optional (older clients). */
    ACCEPT(TRACE_OK ",\"aggregate\":true,\"interval_ms\":0,\"slowest\":0}", PROTO_REQUEST);
    ACCEPT(TRACE_OK ",\"aggregate\":true}", PROTO_REQUEST);
    REJECT(TRACE_OK ",\"aggregate\":1}", PROTO_REQUEST, MCT_E_PROTO,
           "aggregate: must be true or false, got an integer");
    REJECT(TRACE_OK ",\"aggregate\":true,\"slowest\":1001}", PROTO_REQUEST, MCT_E_PROTO,
           "slowest: 1001 is outside 0..1000");
    REJECT(TRACE_OK ",\"aggregate\":true,\"interval_ms\":-1}", PROTO_REQUEST, MCT_E_PROTO,
           "interval_ms: -1 is outside");
    /* sample is optional (older clients): 1..PROTO_MAX_SAMPLE. */
    ACCEPT(TRACE_OK ",\"sample\":10}", PROTO_REQUEST);
    ACCEPT(TRACE_OK ",\"sample\":1000000000}", PROTO_REQUEST);
    REJECT(TRACE_OK ",\"sample\":0}", PROTO_REQUEST, MCT_E_PROTO, "sample: 0 is outside 1..1000000000");
    REJECT(TRACE_OK ",\"args\":true,\"args_len\":0}", PROTO_REQUEST, MCT_E_PROTO, "args_len: 0 is outside 1..1024");
    REJECT(TRACE_OK ",\"args\":true,\"args_len\":1025}", PROTO_REQUEST, MCT_E_PROTO,
           "args_len: 1025 is outside 1..1024");
    REJECT(TRACE_OK ",\"sample\":1000000001}", PROTO_REQUEST, MCT_E_PROTO,
           "sample: 1000000001 is outside 1..1000000000");
    REJECT(TRACE_OK ",\"sample\":\"10\"}", PROTO_REQUEST, MCT_E_PROTO, "sample");

    ACCEPT("{\"type\":\"stop\",\"reason\":\"count\"}", PROTO_REQUEST);
    REJECT("{\"type\":\"stop\",\"reason\":\"\"}", PROTO_REQUEST, MCT_E_PROTO,
           "reason: length 0 is outside 1..1024");
    REJECT("{\"type\":\"stop\"}", PROTO_REQUEST, MCT_E_PROTO, "reason: missing");
}

/* A call message whose tree is levels deep (1 = the root alone). */
static char *deep_call(int levels)
{
    static const char node[] = "{\"class\":\"a.B\",\"method\":\"m\",\"desc\":\"()V\","
        "\"calls\":1,\"total_ns\":10,\"self_ns\":10,\"min_ns\":10,\"max_ns\":10,\"throws\":0,"
        "\"children\":[";
    size_t cap = 128 + (size_t)levels * (sizeof node + 8);
    char *s = malloc(cap);

    strcpy(s, "{\"type\":\"call\",\"seq\":1,\"thread\":{\"id\":1,\"name\":\"main\"},"
              "\"start_ns\":5,\"root\":");
    for (int i = 0; i < levels; i++)
        strcat(s, node);
    for (int i = 0; i < levels; i++)
        strcat(s, "]}");
    strcat(s, "}");
    return s;
}

#define SUMMARY "\"summary\":{\"instrumented\":1,\"pending\":0,\"skipped\":0,\"failed\":0,\"excluded\":0," \
                "\"planned\":0,\"capped\":false,\"plan_ms\":2.5,\"instrument_ms\":1,\"loaded_classes\":9," \
                "\"clock\":\"tsc\"}"

static void test_replies(void)
{
    char *s;

    ACCEPT("{\"type\":\"hello\",\"protocol\":1,\"agent_version\":\"0.1.0\",\"pid\":7,"
           "\"jvm\":{\"name\":\"OpenJDK\",\"vendor\":\"Debian\",\"version\":\"17\"},"
           "\"session\":null,\"instrumented_classes\":0,\"loads\":1,\"new_key\":[1]}",
           PROTO_REPLY);
    ACCEPT("{\"type\":\"hello\",\"protocol\":1,\"agent_version\":\"0.1.0\",\"pid\":7,"
           "\"jvm\":{\"name\":\"\",\"vendor\":\"\",\"version\":\"\"},"
           "\"session\":{\"class\":\"a.B\",\"method\":\"m\",\"depth\":2,\"regex\":\"\",\"client_pid\":9,"
           "\"started_ns\":1,\"calls\":0,\"printed\":0},\"instrumented_classes\":3,"
           "\"missing_capabilities\":[\"can_retransform_classes\"]}", PROTO_REPLY);
    REJECT("{\"type\":\"hello\",\"protocol\":1,\"agent_version\":\"0.1.0\",\"pid\":7,"
           "\"jvm\":{\"name\":\"\",\"vendor\":\"\",\"version\":\"\"},"
           "\"session\":{\"client_pid\":9},\"instrumented_classes\":3}", PROTO_REPLY, MCT_E_PROTO,
           "session.class: missing");
    REJECT("{\"type\":\"hello\",\"protocol\":1,\"agent_version\":\"0.1.0\",\"pid\":7,"
           "\"jvm\":{\"name\":\"\",\"vendor\":\"\",\"version\":\"\"},\"session\":null,"
           "\"instrumented_classes\":3,\"missing_capabilities\":[7]}", PROTO_REPLY, MCT_E_PROTO,
           "missing_capabilities[0]: must be a string, got an integer");
    REJECT("{\"type\":\"hello\",\"protocol\":1,\"agent_version\":\"0.1.0\",\"pid\":7,"
           "\"jvm\":{\"name\":\"\",\"vendor\":\"\",\"version\":\"\"},\"session\":null,"
           "\"instrumented_classes\":3,\"loads\":\"1\"}", PROTO_REPLY, MCT_E_PROTO,
           "loads: must be an integer, got a string");
    REJECT("{\"type\":\"hello\",\"protocol\":1,\"agent_version\":\"0.1.0\",\"pid\":7,"
           "\"jvm\":{\"name\":\"x\",\"vendor\":\"y\"},\"session\":null,"
           "\"instrumented_classes\":0}", PROTO_REPLY, MCT_E_PROTO, "jvm.version: missing");
    REJECT("{\"type\":\"hello\",\"protocol\":1,\"agent_version\":\"0.1.0\",\"pid\":7,"
           "\"jvm\":{\"name\":\"x\",\"vendor\":\"y\",\"version\":\"z\"},\"session\":[],"
           "\"instrumented_classes\":0}", PROTO_REPLY, MCT_E_PROTO,
           "session: must be an object, got an array");
    /* A request type is not a reply, and the other way round. */
    REJECT("{\"type\":\"trace\"}", PROTO_REPLY, MCT_E_PROTO, "unknown message type \"trace\"");

    ACCEPT("{\"type\":\"error\",\"code\":\"busy\",\"message\":\"pid 3 traces a.B.m\"}",
           PROTO_REPLY);
    /* A summary is checked whole by sum_json_check. */
    ACCEPT("{\"type\":\"summary\",\"final\":true,\"calls\":0,\"not_traced\":0,\"root\":null,"
           "\"methods\":[],\"slowest\":[]}", PROTO_REPLY);
    REJECT("{\"type\":\"summary\",\"final\":1,\"calls\":0,\"not_traced\":0,\"root\":null,"
           "\"methods\":[],\"slowest\":[]}", PROTO_REPLY, MCT_E_PROTO, "final");
    REJECT("{\"type\":\"summary\"}", PROTO_REQUEST, MCT_E_PROTO, "unknown message type \"summary\"");
    REJECT("{\"type\":\"error\",\"code\":\"busy\"}", PROTO_REPLY, MCT_E_PROTO, "message: missing");
    ACCEPT("{\"type\":\"end\",\"reason\":\"count\",\"calls\":3}", PROTO_REPLY);
    ACCEPT("{\"type\":\"end\",\"reason\":\"stop\",\"detail\":\"signal\",\"calls\":3,\"printed\":3,"
           "\"filtered\":0,\"dropped\":0,\"restored_classes\":2,\"instrumented_classes\":0,"
           "\"probe_ns\":12.5}", PROTO_REPLY);
    REJECT("{\"type\":\"end\",\"reason\":\"count\",\"dropped\":1.5}", PROTO_REPLY, MCT_E_PROTO,
           "dropped: must be an integer, got a real");
    REJECT("{\"type\":\"end\",\"reason\":\"count\",\"probe_ns\":\"12\"}", PROTO_REPLY, MCT_E_PROTO,
           "probe_ns: must be a number, got a string");
    REJECT("{\"type\":\"end\",\"reason\":\"count\",\"probe_ns\":-1}", PROTO_REPLY, MCT_E_PROTO,
           "probe_ns: -1 is outside 0..");
    /* The probes' cost, in the end and in the plan's summary. */
#define PROBE "\"probe\":{\"ns\":20.5,\"measured_ns\":20.5,\"median_ns\":23,\"floor_ns\":8.2," \
              "\"trusted\":true,\"bursts\":928}"
    ACCEPT("{\"type\":\"end\",\"reason\":\"count\",\"probe_ns\":20.5," PROBE "}", PROTO_REPLY);
    REJECT("{\"type\":\"end\",\"reason\":\"count\",\"probe\":{\"ns\":20.5,\"measured_ns\":20.5,"
           "\"median_ns\":23,\"floor_ns\":8.2,\"trusted\":1,\"bursts\":928}}", PROTO_REPLY, MCT_E_PROTO,
           "probe.trusted: must be true or false, got an integer");
    REJECT("{\"type\":\"end\",\"reason\":\"count\",\"probe\":{\"ns\":20.5,\"measured_ns\":20.5,"
           "\"median_ns\":23,\"trusted\":true,\"bursts\":928}}", PROTO_REPLY, MCT_E_PROTO,
           "probe.floor_ns: missing");
    REJECT("{\"type\":\"end\",\"reason\":\"count\",\"probe\":{\"ns\":-3,\"measured_ns\":20.5,"
           "\"median_ns\":23,\"floor_ns\":8.2,\"trusted\":true,\"bursts\":928}}", PROTO_REPLY, MCT_E_PROTO,
           "probe.ns: -3 is outside 0..");
    REJECT("{\"type\":\"end\",\"reason\":\"count\",\"probe\":7}", PROTO_REPLY, MCT_E_PROTO,
           "probe: must be an object, got an integer");
    ACCEPT("{\"type\":\"status\",\"calls_seen\":3,\"phase\":\"tracing\"}", PROTO_REPLY);
    REJECT("{\"type\":\"status\",\"calls_seen\":[3]}", PROTO_REPLY, MCT_E_PROTO,
           "\"calls_seen\" must be an integer or a string, got an array");
    REJECT("{\"type\":\"status\",\"ok\":true}", PROTO_REPLY, MCT_E_PROTO,
           "must be an integer or a string, got a boolean");
    ACCEPT("{\"type\":\"plan\",\"methods\":[{\"class\":\"a.B\",\"method\":\"m\",\"desc\":\"()V\","
           "\"level\":1,\"status\":\"instrumented\",\"root\":true,\"id\":0,\"why\":\"entry\"}],"
           "\"classes\":1," SUMMARY "}", PROTO_REPLY);
    ACCEPT("{\"type\":\"plan\",\"methods\":[],\"summary\":{\"instrumented\":1,\"pending\":0,\"skipped\":0,"
           "\"failed\":0,\"excluded\":0,\"planned\":0,\"capped\":false,\"plan_ms\":2.5,\"instrument_ms\":1,"
           "\"loaded_classes\":9,\"clock\":\"tsc\"," PROBE "}}", PROTO_REPLY);
    REJECT("{\"type\":\"plan\",\"methods\":[],\"summary\":{\"instrumented\":1,\"pending\":0,\"skipped\":0,"
           "\"failed\":0,\"excluded\":0,\"planned\":0,\"capped\":false,\"plan_ms\":2.5,\"instrument_ms\":1,"
           "\"loaded_classes\":9,\"clock\":\"tsc\",\"probe\":{\"ns\":1,\"measured_ns\":1,\"median_ns\":1,"
           "\"floor_ns\":1,\"trusted\":true,\"bursts\":0}}}", PROTO_REPLY, MCT_E_PROTO,
           "summary.probe.bursts: 0 is outside 1..");
    /* What the regex decided on, its suggestion, the receiver filter. */
#define SUMMARY_BASE "\"summary\":{\"instrumented\":1,\"pending\":0,\"skipped\":0,\"failed\":0," \
                     "\"excluded\":0,\"planned\":0,\"capped\":false,\"plan_ms\":2.5,\"instrument_ms\":1," \
                     "\"loaded_classes\":9,\"clock\":\"tsc\","
    ACCEPT("{\"type\":\"plan\",\"methods\":[]," SUMMARY_BASE "\"callee_classes\":4,\"matched_classes\":0,"
           "\"suggestion\":\"tgt\\\\..*\",\"suggestion_matches\":4,\"receiver\":\"a.B\"}}", PROTO_REPLY);
    REJECT("{\"type\":\"plan\",\"methods\":[]," SUMMARY_BASE "\"callee_classes\":-1}}", PROTO_REPLY,
           MCT_E_PROTO, "summary.callee_classes: -1 is outside 0..");
    REJECT("{\"type\":\"plan\",\"methods\":[]," SUMMARY_BASE "\"matched_classes\":\"3\"}}", PROTO_REPLY,
           MCT_E_PROTO, "summary.matched_classes: must be an integer, got a string");
    REJECT("{\"type\":\"plan\",\"methods\":[]," SUMMARY_BASE "\"suggestion\":\"\"}}", PROTO_REPLY,
           MCT_E_PROTO, "summary.suggestion");
    REJECT("{\"type\":\"plan\",\"methods\":[]," SUMMARY_BASE "\"suggestion_matches\":0}}", PROTO_REPLY,
           MCT_E_PROTO, "summary.suggestion_matches: 0 is outside 1..");
    REJECT("{\"type\":\"plan\",\"methods\":[]," SUMMARY_BASE "\"receiver\":true}}", PROTO_REPLY,
           MCT_E_PROTO, "summary.receiver: must be a string, got a boolean");
    ACCEPT("{\"type\":\"end\",\"reason\":\"stop\",\"calls\":0,\"unloaded_classes\":2}", PROTO_REPLY);
    REJECT("{\"type\":\"end\",\"reason\":\"stop\",\"unloaded_classes\":1.0}", PROTO_REPLY, MCT_E_PROTO,
           "unloaded_classes: must be an integer, got a real");
    REJECT("{\"type\":\"end\",\"reason\":\"stop\",\"warmup\":-1}", PROTO_REPLY, MCT_E_PROTO, "warmup");
    REJECT("{\"type\":\"end\",\"reason\":\"stop\",\"not_recompiled\":-1}", PROTO_REPLY, MCT_E_PROTO,
           "not_recompiled");
    REJECT("{\"type\":\"end\",\"reason\":\"stop\",\"warmup_unknown\":\"\"}", PROTO_REPLY, MCT_E_PROTO,
           "warmup_unknown");
    REJECT("{\"type\":\"plan\",\"methods\":[]}", PROTO_REPLY, MCT_E_PROTO, "summary: missing");
    REJECT("{\"type\":\"plan\",\"methods\":[],\"summary\":{\"instrumented\":1}}", PROTO_REPLY,
           MCT_E_PROTO, "summary.pending: missing");
    REJECT("{\"type\":\"plan\",\"methods\":[{\"class\":\"a.B\",\"method\":\"m\",\"desc\":\"()V\","
           "\"level\":1,\"status\":\"skipped\",\"reason\":3}]," SUMMARY "}", PROTO_REPLY, MCT_E_PROTO,
           "methods[0].reason: must be a string, got an integer");
    REJECT("{\"type\":\"plan\",\"methods\":[{\"class\":\"a.B\",\"method\":\"m\",\"desc\":\"()V\","
           "\"level\":0,\"status\":\"x\"}]}", PROTO_REPLY, MCT_E_PROTO,
           "methods[0].level: 0 is outside 1..64");
    REJECT("{\"type\":\"plan\",\"methods\":[1]}", PROTO_REPLY, MCT_E_PROTO,
           "methods[0]: must be an object, got an integer");

    s = deep_call(1);
    ACCEPT(s, PROTO_REPLY);
    free(s);
    s = deep_call(PROTO_MAX_DEPTH);
    ACCEPT(s, PROTO_REPLY);
    free(s);
    s = deep_call(PROTO_MAX_DEPTH + 1);
    REJECT(s, PROTO_REPLY, MCT_E_PROTO, "nested deeper than 64 levels");
    free(s);
    REJECT("{\"type\":\"call\",\"seq\":1,\"thread\":{\"id\":1,\"name\":\"t\"},\"start_ns\":1,"
           "\"root\":{\"class\":\"a.B\",\"method\":\"m\",\"desc\":\"()V\",\"calls\":1,"
           "\"total_ns\":1,\"self_ns\":1,\"min_ns\":1,\"max_ns\":1,\"throws\":0,"
           "\"children\":[{\"class\":\"a.C\",\"method\":\"n\",\"desc\":\"()V\",\"calls\":-1,"
           "\"total_ns\":1,\"self_ns\":1,\"min_ns\":1,\"max_ns\":1,\"throws\":0,"
           "\"children\":[]}]}}", PROTO_REPLY, MCT_E_PROTO,
           "root.children[0].calls: not an integer >= 0");
    ACCEPT("{\"type\":\"call\",\"seq\":1,\"thread\":{\"id\":1,\"name\":\"t\"},\"start_ns\":1,"
           "\"root\":{\"class\":\"a.B\",\"method\":\"m\",\"desc\":\"()V\",\"calls\":1,"
           "\"total_ns\":1,\"self_ns\":1,\"min_ns\":1,\"max_ns\":1,\"throws\":1,"
           "\"exception\":\"java.lang.IllegalStateException\",\"truncated\":true,"
           "\"children\":[]}}", PROTO_REPLY);
    REJECT("{\"type\":\"call\",\"seq\":1,\"thread\":{\"id\":1,\"name\":\"t\"},\"start_ns\":1,"
           "\"root\":{\"class\":\"a.B\",\"method\":\"m\",\"desc\":\"()V\",\"calls\":1,"
           "\"total_ns\":1,\"self_ns\":1,\"min_ns\":1,\"max_ns\":1,\"throws\":0,"
           "\"truncated\":\"yes\",\"children\":[]}}", PROTO_REPLY, MCT_E_PROTO,
           "root.truncated: not true or false");
}

static void test_names(void)
{
    CHECK(proto_method_desc_valid("()V"));
    CHECK(proto_method_desc_valid("(I)Ljava/lang/Object;"));
    CHECK(proto_method_desc_valid("([[JLa/B$C;DZ)[I"));
    CHECK(!proto_method_desc_valid("()"));
    CHECK(!proto_method_desc_valid("(V)V"));
    CHECK(!proto_method_desc_valid("(L;)V"));
    CHECK(!proto_method_desc_valid("(Ljava/lang/String)V"));
    CHECK(!proto_method_desc_valid("(Ljava.lang.String;)V"));
    CHECK(!proto_method_desc_valid("(La//B;)V"));
    CHECK(!proto_method_desc_valid("()VV"));
    CHECK(!proto_method_desc_valid("I)V"));
    CHECK(!proto_method_desc_valid("(Q)V"));
    CHECK(!proto_method_desc_valid("()["));

    CHECK(proto_method_name_valid("total"));
    CHECK(proto_method_name_valid("<init>"));
    CHECK(proto_method_name_valid("<clinit>"));
    CHECK(proto_method_name_valid("lambda$main$0"));
    CHECK(!proto_method_name_valid(""));
    CHECK(!proto_method_name_valid("<foo>"));
    CHECK(!proto_method_name_valid("a.b"));
    CHECK(!proto_method_name_valid("a/b"));

    CHECK(proto_class_name_valid("Main"));
    CHECK(proto_class_name_valid("com.shop.Cart$Line"));
    CHECK(!proto_class_name_valid(""));
    CHECK(!proto_class_name_valid("com..Cart"));
    CHECK(!proto_class_name_valid(".Cart"));
    CHECK(!proto_class_name_valid("Cart."));
    CHECK(!proto_class_name_valid("com/shop/Cart"));
    CHECK(!proto_class_name_valid("[I"));

    CHECK(proto_utf8_valid("abc", 3));
    CHECK(proto_utf8_valid("\xc3\xa9t\xc3\xa9", 5));
    CHECK(proto_utf8_valid("\xf0\x9f\x98\x80", 4));
    CHECK(!proto_utf8_valid("a\0b", 3));
    CHECK(!proto_utf8_valid("\xc0\x80", 2));            /* overlong NUL */
    CHECK(!proto_utf8_valid("\xed\xa0\x80", 3));        /* surrogate */
    CHECK(!proto_utf8_valid("\xf4\x90\x80\x80", 4));    /* beyond U+10FFFF */
    CHECK(!proto_utf8_valid("\xc3", 1));
    CHECK(!proto_utf8_valid("\xff", 1));

    for (int c = 0; c < PROTO_ERR_COUNT; c++)
        CHECK_INT(proto_code_from_name(proto_code_name((enum proto_code)c)), c);
    CHECK_INT(proto_code_from_name("nope"), -1);
    CHECK_STR(proto_code_name(PROTO_ERR_DENIED), "denied");
}

static void test_error_new(void)
{
    json_t *m = msg_error_new(PROTO_ERR_BAD_REGEX, "bad %s \xff here", "regex");
    mct_err e;

    CHECK(m != NULL);
    if (m == NULL)
        return;
    CHECK_INT(proto_validate(m, PROTO_REPLY, &e), 0);
    CHECK_STR(json_string_value(json_object_get(m, "code")), "bad_regex");
    CHECK_STR(json_string_value(json_object_get(m, "message")), "bad regex ? here");
    json_decref(m);
}

static void test_io(void)
{
    int sv[2];
    json_t *m, *got;
    mct_err e;
    unsigned char hdr[PROTO_HEADER_LEN];

    CHECK_INT(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);

    /* A round trip. */
    m = json_pack("{s:s, s:i, s:s}", "type", "hello", "protocol", 1, "client", "t");
    CHECK_INT(proto_write(sv[0], m, &e), 0);
    got = proto_read(sv[1], PROTO_REQUEST, 1000, &e);
    CHECK(got != NULL && json_equal(m, got));
    json_decref(got);
    json_decref(m);

    /* A pre-rendered payload. */
    {
        static const char p[] = "{\"type\":\"end\",\"reason\":\"count\"}";

        CHECK_INT(proto_write_payload(sv[1], p, strlen(p), &e), 0);
        got = proto_read(sv[0], PROTO_REPLY, 1000, &e);
        CHECK(got != NULL && strcmp(proto_type(got), "end") == 0);
        json_decref(got);
    }

    /* A silent peer times out. */
    CHECK(proto_read(sv[1], PROTO_REQUEST, 50, &e) == NULL);
    CHECK_INT(e.code, MCT_E_IO);
    CHECK(strstr(e.msg, "timed out") != NULL);

    /* A header over the cap is refused before any payload is read. */
    proto_header_encode(hdr, (uint32_t)PROTO_MAX_REQUEST + 1);
    CHECK_INT(write(sv[0], hdr, sizeof hdr), (long long)sizeof hdr);
    CHECK(proto_read(sv[1], PROTO_REQUEST, 1000, &e) == NULL);
    CHECK_INT(e.code, MCT_E_TOOBIG);

    /* A frame cut short by the peer closing. */
    proto_header_encode(hdr, 100);
    CHECK_INT(write(sv[0], hdr, sizeof hdr), (long long)sizeof hdr);
    CHECK_INT(write(sv[0], "{\"ty", 4), 4);
    close(sv[0]);
    CHECK(proto_read(sv[1], PROTO_REQUEST, 1000, &e) == NULL);
    CHECK(strstr(e.msg, "truncated payload: 4 of 100") != NULL);
    CHECK_INT(e.code, MCT_E_CUT);

    /* Then a clean EOF. */
    CHECK(proto_read(sv[1], PROTO_REQUEST, 1000, &e) == NULL);
    CHECK_INT(e.code, MCT_E_EOF);

    /* Writing to a closed peer is an error, not SIGPIPE. */
    m = json_pack("{s:s, s:s}", "type", "stop", "reason", "x");
    CHECK_INT(proto_write(sv[1], m, &e), -1);
    CHECK_INT(e.code, MCT_E_IO);
    json_decref(m);
    close(sv[1]);

    /* Half a header, then EOF. */
    CHECK_INT(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    CHECK_INT(write(sv[0], "MCT", 3), 3);
    close(sv[0]);
    CHECK(proto_read(sv[1], PROTO_REQUEST, 1000, &e) == NULL);
    CHECK(strstr(e.msg, "truncated header: 3 of 8") != NULL);
    CHECK_INT(e.code, MCT_E_CUT);
    close(sv[1]);

    /* Not a socket: plain writes. */
    {
        int p[2];

        CHECK_INT(pipe(p), 0);
        m = json_pack("{s:s, s:s}", "type", "stop", "reason", "x");
        CHECK_INT(proto_write(p[1], m, &e), 0);
        got = proto_read(p[0], PROTO_REQUEST, 1000, &e);
        CHECK(got != NULL && json_equal(m, got));
        json_decref(got);
        json_decref(m);
        close(p[0]);
        close(p[1]);
    }
}

/* proto_rbuf: several frames from one read, a frame split across reads, a
 * frame bigger than a read's chunk, then the end of the stream named (between
 * frames, within a header, within a payload), and a bad header. */
static void test_rbuf(void)
{
    proto_rbuf b = {0};
    const unsigned char *p;
    unsigned char hdr[PROTO_HEADER_LEN];
    uint32_t len;
    int sv[2], i;
    json_t *m = json_pack("{s:s, s:s}", "type", "stop", "reason", "x");
    char *big;
    size_t big_len = 700 * 1024;
    mct_err e;

    CHECK_INT(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    for (i = 0; i < 3; i++)
        CHECK_INT(proto_write(sv[0], m, &e), 0);
    CHECK_INT(proto_rbuf_fill(&b, sv[1], PROTO_REQUEST, &e), 1);
    for (i = 0; i < 3; i++) {
        CHECK_INT(proto_rbuf_next(&b, PROTO_REQUEST, &p, &len, &e), 1);
        CHECK(len == 28 && memcmp(p, "{\"type\":\"stop\",\"reason\":\"x\"}", 28) == 0);
    }
    CHECK_INT(proto_rbuf_next(&b, PROTO_REQUEST, &p, &len, &e), 0);
    CHECK_INT(proto_rbuf_held(&b), 0);

    /* Half a frame, then the rest. */
    proto_header_encode(hdr, 4);
    CHECK_INT(write(sv[0], hdr, 5), 5);
    CHECK_INT(proto_rbuf_fill(&b, sv[1], PROTO_REQUEST, &e), 1);
    CHECK_INT(proto_rbuf_next(&b, PROTO_REQUEST, &p, &len, &e), 0);
    CHECK_INT(proto_rbuf_held(&b), 5);
    CHECK_INT(write(sv[0], hdr + 5, 3), 3);
    CHECK_INT(write(sv[0], "{}", 2), 2);
    CHECK_INT(proto_rbuf_fill(&b, sv[1], PROTO_REQUEST, &e), 1);
    CHECK_INT(proto_rbuf_next(&b, PROTO_REQUEST, &p, &len, &e), 0);
    CHECK_INT(write(sv[0], "  ", 2), 2);
    CHECK_INT(proto_rbuf_fill(&b, sv[1], PROTO_REQUEST, &e), 1);
    CHECK_INT(proto_rbuf_next(&b, PROTO_REQUEST, &p, &len, &e), 1);
    CHECK(len == 4 && memcmp(p, "{}  ", 4) == 0);

    /* A reply bigger than a chunk, written by another process. */
    big = malloc(big_len);
    CHECK(big != NULL);
    if (big != NULL && fork() == 0) {
        memset(big, 'a', big_len);
        memcpy(big, "{\"a\":\"", 6);
        memcpy(big + big_len - 2, "\"}", 2);
        proto_header_encode(hdr, (uint32_t)big_len);
        _exit(proto_write_frames_within(sv[0], hdr, sizeof hdr, -1, 0, &e) == 0 &&
              proto_write_frames_within(sv[0], big, big_len, -1, 0, &e) == 0 ? 0 : 1);
    }
    i = 0;
    while (proto_rbuf_next(&b, PROTO_REPLY, &p, &len, &e) == 0 && i++ < 10000)
        CHECK_INT(proto_rbuf_fill(&b, sv[1], PROTO_REPLY, &e), 1);
    CHECK(len == big_len && p[0] == '{' && p[len - 1] == '}');
    wait(NULL);
    free(big);

    /* The end: between frames, within a header, within a payload. */
    close(sv[0]);
    CHECK_INT(proto_rbuf_fill(&b, sv[1], PROTO_REQUEST, &e), 0);
    CHECK_INT(e.code, MCT_E_EOF);
    close(sv[1]);
    for (i = 0; i < 2; i++) {
        CHECK_INT(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
        proto_header_encode(hdr, 100);
        CHECK_INT(write(sv[0], hdr, i ? 8 : 3), i ? 8 : 3);
        if (i)
            CHECK_INT(write(sv[0], "{\"ty", 4), 4);
        close(sv[0]);
        CHECK_INT(proto_rbuf_fill(&b, sv[1], PROTO_REQUEST, &e), 1);
        CHECK_INT(proto_rbuf_fill(&b, sv[1], PROTO_REQUEST, &e), 0);
        CHECK_INT(e.code, MCT_E_CUT);
        CHECK_STR(e.msg, i ? "truncated payload: 4 of 100 bytes" : "truncated header: 3 of 8 bytes");
        close(sv[1]);
        proto_rbuf_free(&b);
    }

    /* A bad header is refused before its payload. */
    buf_bytes(&b.buf, "MCX\1\0\0\0\1", 8);
    CHECK_INT(proto_rbuf_next(&b, PROTO_REQUEST, &p, &len, &e), -1);
    CHECK(strstr(e.msg, "bad magic") != NULL);
    proto_rbuf_free(&b);
    json_decref(m);
}

/* ---- typed messages (msg.h) ---------------------------------------------- */

/* Each reads a message into its struct and writes the struct again: a new
 * message, or NULL with e set when the read failed. */
static json_t *rt_hello_req(const json_t *in, mct_err *e)
{
    struct msg_hello_req m;

    return msg_hello_req_read(in, &m, e) < 0 ? NULL : msg_hello_req_write(&m);
}

static json_t *rt_trace(const json_t *in, mct_err *e)
{
    struct mct_request m;

    return msg_trace_read(in, &m, e) < 0 ? NULL : msg_trace_write(&m);
}

static json_t *rt_stop(const json_t *in, mct_err *e)
{
    struct msg_stop m;

    return msg_stop_read(in, &m, e) < 0 ? NULL : msg_stop_write(&m);
}

static json_t *rt_hello(const json_t *in, mct_err *e)
{
    struct msg_hello m;
    json_t *out = msg_hello_read(in, &m, e) < 0 ? NULL : msg_hello_write(&m);

    msg_hello_clear(&m);
    return out;
}

static json_t *rt_plan(const json_t *in, mct_err *e)
{
    struct msg_plan m;
    json_t *out = msg_plan_read(in, &m, e) < 0 ? NULL : msg_plan_write(&m);

    msg_plan_clear(&m);
    return out;
}

static json_t *rt_status(const json_t *in, mct_err *e)
{
    struct msg_status m;

    return msg_status_read(in, &m, e) < 0 ? NULL : msg_status_write(&m);
}

static json_t *rt_end(const json_t *in, mct_err *e)
{
    struct msg_end m;

    return msg_end_read(in, &m, e) < 0 ? NULL : msg_end_write(&m);
}

static json_t *rt_error(const json_t *in, mct_err *e)
{
    struct msg_error m;

    return msg_error_read(in, &m, e) < 0 ? NULL : msg_error_write(&m);
}

#define PROBE_OBJ "{\"ns\":20.5,\"measured_ns\":20.5,\"median_ns\":21.0,\"floor_ns\":11.5," \
    "\"trusted\":true,\"bursts\":900}"
#define HELLO_HEAD "{\"type\":\"hello\",\"protocol\":1,\"agent_version\":\"0.1.0\",\"pid\":7," \
    "\"jvm\":{\"name\":\"VM\",\"vendor\":\"V\",\"version\":\"17\"},"
#define PLAN_SUMMARY "\"summary\":{\"instrumented\":1,\"pending\":0,\"skipped\":0,\"failed\":0," \
    "\"excluded\":1,\"planned\":0,\"capped\":false,\"plan_ms\":2.5,\"instrument_ms\":0.5," \
    "\"loaded_classes\":500,\"clock\":\"tsc\""

/* Messages as the agent and the client send them, keys in the order their
 * writers put them: read and written again, each must come out the same,
 * to the byte. */
static const struct {
    json_t *(*rt)(const json_t *in, mct_err *e);
    const char *text;
} round_trips[] = {
    { rt_hello_req, "{\"type\":\"hello\",\"protocol\":1,\"client\":\"0.1.0\"}" },
    { rt_trace, "{\"type\":\"trace\",\"protocol\":1,\"class\":\"com.shop.Cart\",\"method\":\"total\","
                "\"desc\":null,\"depth\":3,\"regex\":\"com\\\\.shop\\\\..*\",\"include_jdk\":false,"
                "\"plan_only\":false,\"min_ns\":0,\"count\":0,\"verbose\":false,\"client_pid\":42,"
                "\"aggregate\":false,\"wait\":false,\"include_warmup\":false,\"compact\":false,\"cpu\":false,\"alloc\":false,"
                "\"follow_async\":false,\"args\":false,\"skip_trivial\":false}" },
    { rt_trace, "{\"type\":\"trace\",\"protocol\":1,\"class\":\"a.B$C\",\"method\":\"<init>\","
                "\"desc\":\"(I[Ljava/lang/String;)V\",\"depth\":64,\"regex\":\"\",\"include_jdk\":true,"
                "\"plan_only\":true,\"min_ns\":1500000,\"count\":9223372036854775807,\"verbose\":true,"
                "\"client_pid\":2147483647,\"aggregate\":false,\"wait\":true,\"include_warmup\":false,\"compact\":true,\"cpu\":true,\"alloc\":true,"
                "\"follow_async\":true,\"async_wait_ms\":250,\"args\":true,\"args_len\":1024,\"skip_trivial\":true}" },
    { rt_trace, TRACE_OK ",\"aggregate\":true,\"interval_ms\":250,\"slowest\":1000,\"wait\":false,\"sample\":7,"
                "\"include_warmup\":true,\"compact\":false,\"cpu\":false,\"alloc\":false,\"follow_async\":false,\"args\":true,\"skip_trivial\":false}" },
    { rt_stop, "{\"type\":\"stop\",\"reason\":\"signal\"}" },
    { rt_hello, HELLO_HEAD "\"session\":null,\"instrumented_classes\":0,\"loads\":1,"
                "\"missing_capabilities\":[]}" },
    { rt_hello, HELLO_HEAD "\"session\":{\"class\":\"a.B\",\"method\":\"m\",\"depth\":2,\"regex\":\"a\\\\..*\","
                "\"client_pid\":9,\"started_ns\":1700000000000000000,\"calls\":5,\"printed\":4},"
                "\"instrumented_classes\":3,\"loads\":2,"
                "\"missing_capabilities\":[\"can_generate_early_vmstart\",\"x\"]}" },
    { rt_plan, "{\"type\":\"plan\",\"methods\":[],\"summary\":{\"instrumented\":0,\"pending\":0,"
               "\"skipped\":0,\"failed\":0,\"excluded\":0,\"planned\":0,\"capped\":true,\"plan_ms\":0.0,"
               "\"instrument_ms\":0.0,\"loaded_classes\":0,\"clock\":\"monotonic\"}}" },
    { rt_plan, "{\"type\":\"plan\",\"methods\":[{\"class\":\"a.B\",\"method\":\"m\",\"desc\":\"()V\","
               "\"level\":1,\"status\":\"instrumented\",\"root\":true,\"id\":0},{\"class\":\"a.\xc3\xa9\","
               "\"method\":\"n\",\"desc\":\"(J)I\",\"level\":2,\"status\":\"excluded\",\"root\":false,"
               "\"reason\":\"JDK class\"}]," PLAN_SUMMARY ",\"probe\":" PROBE_OBJ ",\"callee_classes\":6,"
               "\"matched_classes\":0,\"suggestion\":\"a\\\\..*\",\"suggestion_matches\":2,"
               "\"receiver\":\"a.C\"}}" },
    { rt_status, "{\"type\":\"status\",\"calls\":3,\"printed\":2,\"filtered\":1,\"dropped\":0,"
                 "\"instrumented\":8,\"pending\":1,\"late\":0,\"instrumented_classes\":4,"
                 "\"unloaded_classes\":0,\"note\":\"no call of the entry method has completed yet\"}" },
    { rt_status, "{\"type\":\"status\",\"calls\":0,\"printed\":0,\"filtered\":0,\"dropped\":0,"
                 "\"instrumented\":0,\"pending\":0,\"late\":0,\"instrumented_classes\":0,"
                 "\"unloaded_classes\":0}" },
    /* The end of finish() and the end of session_vm_death(). */
    { rt_end, "{\"type\":\"end\",\"reason\":\"stop\",\"calls\":3,\"printed\":3,\"filtered\":0,\"dropped\":2,"
              "\"discarded\":1,\"restored_classes\":4,\"instrumented_classes\":0,\"unloaded_classes\":0,"
              "\"detail\":\"signal\",\"probe_ns\":20.5,\"probe\":" PROBE_OBJ ",\"warmup\":2}" },
    { rt_end, "{\"type\":\"end\",\"reason\":\"jvm_exit\",\"calls\":7,\"printed\":6}" },
    { rt_end, "{\"type\":\"end\",\"reason\":\"count\",\"calls\":7,\"printed\":7,\"warmup\":1,"
              "\"not_recompiled\":2}" },
    { rt_end, "{\"type\":\"end\",\"reason\":\"count\",\"calls\":7,\"printed\":7,"
              "\"warmup_unknown\":\"SetEventNotificationMode: JVMTI_ERROR_MUST_POSSESS_CAPABILITY\"}" },
    { rt_error, "{\"type\":\"error\",\"code\":\"plan_limit\",\"message\":\"planning took too long\"}" },
};

static void test_msg_round_trips(void)
{
    for (size_t i = 0; i < sizeof round_trips / sizeof round_trips[0]; i++) {
        mct_err e;
        json_t *in = proto_parse(round_trips[i].text, strlen(round_trips[i].text), PROTO_REQUEST, &e);
        json_t *out;
        char *text;

        if (in == NULL)
            in = proto_parse(round_trips[i].text, strlen(round_trips[i].text), PROTO_REPLY, &e);
        if (in == NULL) {
            fprintf(stderr, "%s:%d: round trip %zu: %s\n", __FILE__, __LINE__, i, e.msg);
            check_failures++;
            continue;
        }
        out = round_trips[i].rt(in, &e);
        text = out != NULL ? json_dumps(out, JSON_COMPACT) : NULL;
        if (text == NULL || strcmp(text, round_trips[i].text) != 0) {
            fprintf(stderr, "%s:%d: round trip %zu:\n  sent %s\n  got  %s\n", __FILE__, __LINE__, i,
                    round_trips[i].text, text != NULL ? text : e.msg);
            check_failures++;
        }
        free(text);
        json_decref(out);
        json_decref(in);
    }
}

/* Messages each reader must refuse, with a part of its message: another
 * type, the other direction, or a message its schema rejects. */
static const struct {
    json_t *(*rt)(const json_t *in, mct_err *e);
    const char *text;
    const char *part;
} bad_reads[] = {
    { rt_hello_req, "{\"type\":\"stop\",\"reason\":\"x\"}", "expected a \"hello\" request, got a \"stop\"" },
    { rt_hello_req, "{\"type\":\"hello\",\"protocol\":1}", "hello request: client: missing" },
    { rt_trace, "{\"type\":\"stop\",\"reason\":\"x\"}", "expected a \"trace\" request, got a \"stop\"" },
    { rt_trace, TRACE_OK ",\"x\":1}", "unknown key \"x\"" },
    { rt_trace, "{\"type\":\"trace\",\"protocol\":1,\"class\":\"a.B\",\"method\":\"m\",\"desc\":null,"
                "\"depth\":65,\"regex\":\"\",\"include_jdk\":false,\"plan_only\":false,\"min_ns\":0,"
                "\"count\":0,\"verbose\":false,\"client_pid\":1}", "depth: 65 is outside 1..64" },
    { rt_stop, "{\"type\":\"stop\",\"reason\":\"\"}", "reason: length 0" },
    { rt_stop, "{\"type\":\"end\",\"reason\":\"count\"}", "unknown message type \"end\"" },
    { rt_hello, "{\"type\":\"hello\",\"protocol\":1,\"client\":\"x\"}", "agent_version: missing" },
    { rt_hello, HELLO_HEAD "\"session\":7,\"instrumented_classes\":0}", "session: must be an object" },
    { rt_plan, "{\"type\":\"end\",\"reason\":\"count\"}", "expected a \"plan\" reply, got a \"end\"" },
    { rt_plan, "{\"type\":\"plan\",\"methods\":[{\"class\":\"a.B\",\"method\":\"m\",\"desc\":\"()V\","
               "\"level\":0,\"status\":\"x\"}]," PLAN_SUMMARY "}}", "methods[0].level: 0 is outside 1..64" },
    { rt_status, "{\"type\":\"status\",\"calls\":-1}", "status: calls: -1 is outside" },
    { rt_status, "{\"type\":\"status\",\"note\":7}", "note: must be a string" },
    { rt_end, "{\"type\":\"end\",\"reason\":\"count\",\"discarded\":\"2\"}", "discarded: must be an integer" },
    { rt_end, "{\"type\":\"end\"}", "end: reason: missing" },
    { rt_error, "{\"type\":\"error\",\"code\":\"busy\"}", "error: message: missing" },
    { rt_error, "{\"type\":\"status\"}", "expected a \"error\" reply, got a \"status\"" },
    { rt_error, "[]", "must be a JSON object" },
};

static void test_msg_bad_reads(void)
{
    for (size_t i = 0; i < sizeof bad_reads / sizeof bad_reads[0]; i++) {
        json_error_t jerr;
        json_t *in = json_loads(bad_reads[i].text, 0, &jerr), *out;
        mct_err e;

        mct_err_clear(&e);
        if (in == NULL) {
            fprintf(stderr, "%s:%d: bad read %zu: %s\n", __FILE__, __LINE__, i, jerr.text);
            check_failures++;
            continue;
        }
        out = bad_reads[i].rt(in, &e);
        if (out != NULL || e.code != MCT_E_PROTO || strstr(e.msg, bad_reads[i].part) == NULL) {
            fprintf(stderr, "%s:%d: bad read %zu: read, or the message \"%s\" lacks \"%s\"\n",
                    __FILE__, __LINE__, i, e.msg, bad_reads[i].part);
            check_failures++;
        }
        json_decref(out);
        json_decref(in);
    }
}

/* What the readers make of absent keys and unknown codes, and the writers'
 * refusals. */
static void test_msg_details(void)
{
    struct msg_end end;
    struct msg_error err;
    struct msg_plan plan;
    json_t *m;
    mct_err e;

    msg_end_init(&end, "jvm_exit");
    end.calls = 1;
    end.printed = 0;
    m = msg_end_write(&end);
    CHECK(m != NULL && msg_end_read(m, &end, &e) == 0);
    CHECK_STR(end.reason, "jvm_exit");
    CHECK_INT(end.calls, 1);
    CHECK_INT(end.filtered, -1);
    CHECK_INT(end.has_probe, 0);
    CHECK(end.probe_ns < 0);
    CHECK(end.detail == NULL);
    json_decref(m);

    m = json_pack("{s:s, s:s, s:s}", "type", "error", "code", "from_the_future", "message", "m");
    CHECK_INT(msg_error_read(m, &err, &e), 0);
    CHECK_INT(err.code, PROTO_ERR_INTERNAL);
    CHECK_STR(err.name, "from_the_future");
    json_decref(m);

    /* An empty message is named by its code. */
    m = msg_error_new(PROTO_ERR_BUSY, "%s", "");
    CHECK(m != NULL && msg_error_read(m, &err, &e) == 0);
    CHECK_STR(err.message, "busy");
    json_decref(m);

    /* Not UTF-8: the writer fails instead of sending a broken message. */
    CHECK(msg_stop_write(&(struct msg_stop){ .reason = "a\xff" }) == NULL);

    /* A plan's strings are borrowed from its message. */
    m = msg_plan_write(&(struct msg_plan){
        .methods = &(struct msg_plan_method){ .cls = "a.B", .method = "m", .desc = "()V", .level = 1,
                                              .status = "planned", .id = -1 },
        .n_methods = 1,
        .summary = { .clock = "tsc", .callee_classes = -1, .matched_classes = -1,
                     .suggestion_matches = -1 },
    });
    CHECK(m != NULL && msg_plan_read(m, &plan, &e) == 0);
    CHECK_INT(plan.n_methods, 1);
    if (plan.n_methods == 1) {
        CHECK(plan.methods[0].cls == json_string_value(json_object_get(
                                         json_array_get(json_object_get(m, "methods"), 0), "class")));
        CHECK_INT(plan.methods[0].id, -1);
        CHECK(plan.methods[0].reason == NULL);
    }
    CHECK_INT(plan.summary.callee_classes, -1);
    CHECK(plan.summary.receiver == NULL);
    msg_plan_clear(&plan);
    json_decref(m);
}

/* The error codes: mct_err codes to error codes, error codes to exit
 * statuses (PROTOCOL.md's table). */
static void test_codes(void)
{
    CHECK_INT(proto_code_of_err(MCT_E_NO_CLASS), PROTO_ERR_CLASS_NOT_LOADED);
    CHECK_INT(proto_code_of_err(MCT_E_NO_METHOD), PROTO_ERR_METHOD_NOT_FOUND);
    CHECK_INT(proto_code_of_err(MCT_E_BAD_REGEX), PROTO_ERR_BAD_REGEX);
    CHECK_INT(proto_code_of_err(MCT_E_NOTHING), PROTO_ERR_NOTHING_INSTRUMENTABLE);
    CHECK_INT(proto_code_of_err(MCT_E_BUSY), PROTO_ERR_BUSY);
    CHECK_INT(proto_code_of_err(MCT_E_ARG), PROTO_ERR_BAD_REQUEST);
    CHECK_INT(proto_code_of_err(MCT_E_UNSUPPORTED), PROTO_ERR_UNSUPPORTED);
    CHECK_INT(proto_code_of_err(MCT_E_LIMIT), PROTO_ERR_PLAN_LIMIT);
    CHECK_INT(proto_code_of_err(MCT_E_JVMTI), PROTO_ERR_INTERNAL);
    CHECK_INT(proto_code_of_err(MCT_E_NOMEM), PROTO_ERR_INTERNAL);
    CHECK_INT(proto_code_exit(PROTO_ERR_BUSY), 3);
    CHECK_INT(proto_code_exit(PROTO_ERR_CLASS_NOT_LOADED), 3);
    CHECK_INT(proto_code_exit(PROTO_ERR_METHOD_NOT_FOUND), 3);
    CHECK_INT(proto_code_exit(PROTO_ERR_BAD_REGEX), 3);
    CHECK_INT(proto_code_exit(PROTO_ERR_NOTHING_INSTRUMENTABLE), 3);
    CHECK_INT(proto_code_exit(PROTO_ERR_UNSUPPORTED), 3);
    CHECK_INT(proto_code_exit(PROTO_ERR_PLAN_LIMIT), 3);
    CHECK_INT(proto_code_exit(PROTO_ERR_DENIED), 2);
    CHECK_INT(proto_code_exit(PROTO_ERR_BAD_REQUEST), 5);
    CHECK_INT(proto_code_exit(PROTO_ERR_PROTOCOL), 5);
    CHECK_INT(proto_code_exit(PROTO_ERR_INTERNAL), 5);
    CHECK_INT(proto_code_exit(PROTO_ERR_COUNT), 5);
}

int main(void)
{
    test_header();
    test_frames();
    test_json();
    test_requests();
    test_replies();
    test_names();
    test_error_new();
    test_io();
    test_rbuf();
    test_msg_round_trips();
    test_msg_bad_reads();
    test_msg_details();
    test_codes();
    return check_status();
}
