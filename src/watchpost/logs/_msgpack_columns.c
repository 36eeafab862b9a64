/* A MessagePack ingestion body straight into Arrow string columns: the native fast path of
 * logs/parsing.py's decode + build_batch + columns.arrow_table (see logs/fast_columns.py).
 *
 * One pass over the body's bytes writes, per event, its flattened attributes into one column
 * per dotted path, its JSON text as orjson writes it (`raw`), its search text (`text`, as
 * columns.text_of makes it), its level, service and message, and its time when the time is
 * RFC 3339 text of the usual form. Python objects are made only for the odd time values
 * (handed back for Python to read) and for the few columns at the end.
 *
 * The Python code is the definition: anything this file does not reproduce exactly (floats,
 * binary and extension values, Fluent Bit entries, bare values, non-text keys, duplicate
 * keys or paths, very deep nesting, a body that does not parse) makes `columns()` return
 * None, and the caller takes the Python path, which also gives the error for a bad body.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define SEP '\x1f'
#define MAX_DEPTH 48          /* parsing.MAX_DEPTH is 64: deeper bodies go to Python */
#define MAX_PATH 1024         /* bytes of one dotted path */
#define MAX_COLUMNS 512       /* distinct paths in one body */
#define TABLE_SIZE 2048       /* open addressing over the paths, a power of two */
#define MAX_KEYS_CHECKED 64   /* maps with more keys go to Python (duplicate keys check) */
#define MAX_EVENTS 200000     /* parsing.MAX_EVENTS */
#define MICROS_PER_DAY 86400000000LL

/* ------------------------------------------------------------------ growable buffers */

typedef struct {
    char *p;
    Py_ssize_t len, cap;
} Buf;

static int buf_reserve(Buf *b, Py_ssize_t extra) {
    if (b->len + extra <= b->cap) return 0;
    Py_ssize_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra) cap *= 2;
    char *p = PyMem_Realloc(b->p, (size_t)cap);
    if (p == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    b->p = p;
    b->cap = cap;
    return 0;
}

static inline int buf_put(Buf *b, const char *s, Py_ssize_t n) {
    if (n == 0) return 0; /* (s may be NULL then) */
    if (buf_reserve(b, n) < 0) return -1;
    memcpy(b->p + b->len, s, (size_t)n);
    b->len += n;
    return 0;
}

static inline int buf_byte(Buf *b, char c) {
    if (b->len >= b->cap && buf_reserve(b, 1) < 0) return -1;
    b->p[b->len++] = c;
    return 0;
}

static void buf_free(Buf *b) {
    PyMem_Free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

/* --------------------------------------------------------- Arrow string columns */

typedef struct {
    Buf data;
    Buf offsets;  /* int32, rows + 1 */
    Buf validity; /* one bit a row, Arrow's order */
    Py_ssize_t rows;
    Py_ssize_t nulls;
    Py_ssize_t last_row; /* the row of the last value (a second one there: a duplicate) */
    char *path;
    Py_ssize_t path_len;
    uint64_t hash;
} Column;

/* A column made empty; the room its buffers had stays (a state is reused, see spare). */
static int column_reset(Column *c) {
    c->data.len = c->offsets.len = c->validity.len = 0;
    c->rows = c->nulls = 0;
    c->last_row = -1;
    PyMem_Free(c->path);
    c->path = NULL;
    c->path_len = 0;
    int32_t zero = 0;
    return buf_put(&c->offsets, (const char *)&zero, 4);
}

static void column_free(Column *c) {
    buf_free(&c->data);
    buf_free(&c->offsets);
    buf_free(&c->validity);
    PyMem_Free(c->path);
}

/* The row's validity bit and end offset; the value's bytes are in data already. */
static int column_close_row(Column *c, int valid) {
    Py_ssize_t byte = c->rows >> 3;
    if (byte >= c->validity.len) {
        if (buf_reserve(&c->validity, 1) < 0) return -1;
        c->validity.p[c->validity.len++] = 0;
    }
    if (valid)
        c->validity.p[byte] |= (char)(1 << (c->rows & 7));
    else
        c->nulls++;
    if (c->data.len > INT32_MAX) {
        PyErr_SetString(PyExc_OverflowError, "a column over 2 GiB");
        return -1;
    }
    int32_t end = (int32_t)c->data.len;
    if (buf_put(&c->offsets, (const char *)&end, 4) < 0) return -1;
    c->rows++;
    return 0;
}

static int column_pad(Column *c, Py_ssize_t rows) {
    while (c->rows < rows)
        if (column_close_row(c, 0) < 0) return -1;
    return 0;
}

/* ------------------------------------------------------------------------ state */

enum Kind { K_NONE = 0, K_NIL, K_BOOL, K_INT, K_UINT, K_STR, K_MAP, K_ARRAY };

/* A value of one of the fields build_batch reads at the top of an event. */
typedef struct {
    enum Kind kind;
    const char *s; /* its text (a string's bytes, a number's digits, true/false) */
    Py_ssize_t n;
    char num[24];
    int64_t i;
    uint64_t u;
    int empty;                     /* an empty map or array */
    Py_ssize_t json_start, json_end; /* its JSON within the event's raw text */
} Field;

enum {
    F_DT, F_TIMESTAMP, F_DATE, F_LEVEL, F_SEVERITY, F_SERVICE, F_MESSAGE, F_MSG, F_LOG,
    F_SERVICE_NAME, F_COUNT
};
static const char *FIELD_NAMES[] = {"dt", "timestamp", "date", "level", "severity",
                                    "service", "message", "msg", "log"};

typedef struct {
    const unsigned char *p, *end;
    Column *cols;
    Py_ssize_t ncols;
    Py_ssize_t made; /* columns of cols whose buffers were ever allocated */
    int32_t table[TABLE_SIZE]; /* column index + 1, 0 empty */
    char path[MAX_PATH];
    Column raw, text, level, service, body;
    Buf scratch;  /* the event's attribute values joined (the middle of its text) */
    Py_ssize_t leaves;
    Py_ssize_t row;
    Field fields[F_COUNT];
    int in_service; /* within the top-level "service" map */
    int64_t *micros;
    Py_ssize_t micros_cap;
    PyObject *odd_times; /* [(row, value)] for Python to read */
    int64_t received;
} State;

/* -1 with an exception set: an error; -2: not this path's (the caller takes Python's) */
#define FAIL -1
#define DECLINE -2

/* ------------------------------------------------------------------- reading */

static inline int need(State *st, Py_ssize_t n) {
    return (st->end - st->p) >= n ? 0 : DECLINE;
}

static inline uint64_t be(const unsigned char *p, int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v = (v << 8) | p[i];
    return v;
}

/* A string's length after its marker byte (st->p past the marker), or -1 when not a string. */
static Py_ssize_t str_len(State *st, unsigned char m) {
    if ((m & 0xe0) == 0xa0) return m & 0x1f;
    int w = m == 0xd9 ? 1 : m == 0xda ? 2 : m == 0xdb ? 4 : 0;
    if (!w || need(st, w)) return -1;
    Py_ssize_t n = (Py_ssize_t)be(st->p, w);
    st->p += w;
    return n;
}

/* The length of a map or an array after its marker byte: the low nibble of the fixed forms
 * (0x80-0x9f), else 16 bits (0xdc, 0xde) or 32 (0xdd, 0xdf) after it. */
static int container_len(State *st, unsigned char m, Py_ssize_t *count) {
    if (m < 0xa0) {
        *count = m & 0x0f;
        return 0;
    }
    int w = m == 0xdc || m == 0xde ? 2 : 4;
    if (need(st, w)) return DECLINE;
    *count = (Py_ssize_t)be(st->p, w);
    st->p += w;
    return 0;
}

static int valid_utf8(const char *s, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) {
        if ((unsigned char)s[i] >= 0x80) {
            PyObject *u = PyUnicode_DecodeUTF8(s, n, "strict"); /* msgpack's own check */
            if (u == NULL) {
                PyErr_Clear();
                return DECLINE;
            }
            Py_DECREF(u);
            return 0;
        }
    }
    return 0;
}

/* An integer's decimal digits into out (24 bytes); their count. */
static int format_u64(uint64_t v, int negative, char *out) {
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    int k = 0;
    if (negative) out[k++] = '-';
    while (n) out[k++] = tmp[--n];
    out[k] = 0;
    return k;
}

/* ------------------------------------------------------------------- JSON text */

static const char HEX[] = "0123456789abcdef";

/* A string as orjson writes it: ", \ and control characters escaped, the rest as it is. */
static int json_string(Buf *b, const char *s, Py_ssize_t n) {
    if (buf_reserve(b, n + 2) < 0) return FAIL;
    b->p[b->len++] = '"';
    Py_ssize_t run = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        if (buf_put(b, s + run, i - run) < 0) return FAIL;
        run = i + 1;
        char esc[6] = {'\\', 0, 0, 0, 0, 0};
        int len = 2;
        switch (c) {
        case '"': esc[1] = '"'; break;
        case '\\': esc[1] = '\\'; break;
        case '\b': esc[1] = 'b'; break;
        case '\t': esc[1] = 't'; break;
        case '\n': esc[1] = 'n'; break;
        case '\f': esc[1] = 'f'; break;
        case '\r': esc[1] = 'r'; break;
        default:
            esc[1] = 'u'; esc[2] = '0'; esc[3] = '0';
            esc[4] = HEX[c >> 4]; esc[5] = HEX[c & 15];
            len = 6;
        }
        if (buf_put(b, esc, len) < 0) return FAIL;
    }
    if (buf_put(b, s + run, n - run) < 0) return FAIL;
    return buf_byte(b, '"');
}

/* ------------------------------------------------------------------- columns */

static uint64_t fnv(const char *s, Py_ssize_t n) {
    uint64_t h = 1469598103934665603ULL;
    for (Py_ssize_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h;
}

static Column *column_for(State *st, Py_ssize_t path_len) {
    uint64_t h = fnv(st->path, path_len);
    size_t slot = (size_t)h & (TABLE_SIZE - 1);
    for (;;) {
        int32_t at = st->table[slot];
        if (at == 0) break;
        Column *c = &st->cols[at - 1];
        if (c->hash == h && c->path_len == path_len && !memcmp(c->path, st->path, (size_t)path_len))
            return c;
        slot = (slot + 1) & (TABLE_SIZE - 1);
    }
    if (st->ncols >= MAX_COLUMNS) return NULL; /* DECLINE */
    Column *c = &st->cols[st->ncols];
    if (column_reset(c) < 0) return (Column *)-1;
    if (st->ncols >= st->made) st->made = st->ncols + 1;
    c->path = PyMem_Malloc((size_t)path_len + 1);
    if (c->path == NULL) {
        PyErr_NoMemory();
        return (Column *)-1;
    }
    memcpy(c->path, st->path, (size_t)path_len);
    c->path_len = path_len;
    c->hash = h;
    st->ncols++;
    st->table[slot] = (int32_t)st->ncols;
    return c;
}

/* A leaf: its text into the path's column and into the event's text. */
static int leaf(State *st, Py_ssize_t path_len, const char *s, Py_ssize_t n) {
    Column *c = column_for(st, path_len);
    if (c == NULL) return DECLINE;
    if (c == (Column *)-1) return FAIL;
    if (c->last_row == st->row) return DECLINE; /* two leaves of one path: Python's rule */
    if (column_pad(c, st->row) < 0 || buf_put(&c->data, s, n) < 0 || column_close_row(c, 1) < 0)
        return FAIL;
    c->last_row = st->row;
    Buf *t = &st->scratch;
    if (st->leaves++ && buf_byte(t, SEP) < 0) return FAIL;
    Py_ssize_t at = t->len;
    if (buf_put(t, s, n) < 0) return FAIL;
    for (Py_ssize_t i = at; i < t->len; i++)
        if (t->p[i] == SEP) t->p[i] = ' ';
    return 0;
}

/* --------------------------------------------------------------------- values */

static int value(State *st, Py_ssize_t path_len, int depth, Field *field);

static int append_key(State *st, Py_ssize_t *path_len, const char *k, Py_ssize_t n) {
    if (*path_len + n + 1 >= MAX_PATH) return DECLINE;
    memcpy(st->path + *path_len, k, (size_t)n);
    *path_len += n;
    return 0;
}

static int top_field(const char *k, Py_ssize_t n) {
    for (int f = 0; f < F_SERVICE_NAME; f++)
        if ((Py_ssize_t)strlen(FIELD_NAMES[f]) == n && !memcmp(FIELD_NAMES[f], k, (size_t)n))
            return f;
    return -1;
}

static int map_value(State *st, Py_ssize_t count, Py_ssize_t path_len, int depth) {
    Buf *raw = &st->raw.data;
    if (count == 0) {
        if (depth > 1) {
            int r = leaf(st, path_len - 1, "{}", 2);
            if (r < 0) return r;
        }
        return buf_put(raw, "{}", 2);
    }
    if (count > MAX_KEYS_CHECKED || depth > MAX_DEPTH) return DECLINE;
    const char *keys[MAX_KEYS_CHECKED];
    Py_ssize_t lens[MAX_KEYS_CHECKED];
    if (buf_byte(raw, '{') < 0) return FAIL;
    for (Py_ssize_t i = 0; i < count; i++) {
        if (need(st, 1)) return DECLINE;
        unsigned char m = *st->p++;
        Py_ssize_t n = str_len(st, m);
        if (n < 0 || need(st, n)) return DECLINE;
        const char *k = (const char *)st->p;
        st->p += n;
        if (valid_utf8(k, n) < 0) return DECLINE;
        for (Py_ssize_t j = 0; j < i; j++)
            if (lens[j] == n && !memcmp(keys[j], k, (size_t)n)) return DECLINE;
        keys[i] = k;
        lens[i] = n;
        if (i && buf_byte(raw, ',') < 0) return FAIL;
        if (json_string(raw, k, n) < 0 || buf_byte(raw, ':') < 0) return FAIL;
        Py_ssize_t child = path_len;
        if (append_key(st, &child, k, n) < 0) return DECLINE;
        Field *field = NULL;
        if (depth == 1) {
            int f = top_field(k, n);
            if (f >= 0) field = &st->fields[f];
            st->in_service = f == F_SERVICE;
        } else if (depth == 2 && st->in_service && n == 4 && !memcmp(k, "name", 4)) {
            field = &st->fields[F_SERVICE_NAME];
        }
        int r = value(st, child, depth, field);
        if (r < 0) return r;
    }
    if (depth == 1) st->in_service = 0;
    return buf_byte(raw, '}');
}

static int array_value(State *st, Py_ssize_t count, Py_ssize_t path_len, int depth) {
    Buf *raw = &st->raw.data;
    if (count == 0) {
        int r = leaf(st, path_len - 1, "[]", 2);
        if (r < 0) return r;
        return buf_put(raw, "[]", 2);
    }
    if (depth > MAX_DEPTH) return DECLINE;
    if (buf_byte(raw, '[') < 0) return FAIL;
    int service = st->in_service;
    st->in_service = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        if (i && buf_byte(raw, ',') < 0) return FAIL;
        char index[24];
        int n = format_u64((uint64_t)i, 0, index);
        Py_ssize_t child = path_len;
        if (append_key(st, &child, index, n) < 0) return DECLINE;
        int r = value(st, child, depth, NULL);
        if (r < 0) return r;
    }
    st->in_service = service;
    return buf_byte(raw, ']');
}

/* One value at `path` (path_len bytes of st->path; the event itself at depth 0), its JSON
 * into raw; `field` records it when it is one build_batch reads. */
static int value(State *st, Py_ssize_t path_len, int depth, Field *field) {
    if (need(st, 1)) return DECLINE;
    unsigned char m = *st->p++;
    Buf *raw = &st->raw.data;
    Py_ssize_t json_start = raw->len;
    Field local;
    Field *f = field ? field : &local;
    memset(f, 0, sizeof *f);
    const char *text = NULL;
    Py_ssize_t n = 0;
    int r;
    if (m <= 0x7f || m >= 0xe0 || (m >= 0xcc && m <= 0xcf) || (m >= 0xd0 && m <= 0xd3)) {
        if (m <= 0x7f) {
            f->kind = K_INT, f->i = m;
        } else if (m >= 0xe0) {
            f->kind = K_INT, f->i = (int8_t)m;
        } else {
            int w = 1 << (m & 3);
            if (need(st, w)) return DECLINE;
            uint64_t v = be(st->p, w);
            st->p += w;
            if (m <= 0xcf) {
                f->kind = K_UINT, f->u = v;
            } else {
                f->kind = K_INT;
                f->i = w == 1 ? (int8_t)v : w == 2 ? (int16_t)v : w == 4 ? (int32_t)v : (int64_t)v;
            }
        }
        if (f->kind == K_INT)
            n = f->i < 0 ? format_u64(0 - (uint64_t)f->i, 1, f->num) : format_u64((uint64_t)f->i, 0, f->num);
        else
            n = format_u64(f->u, 0, f->num);
        text = f->num;
        if (buf_put(raw, text, n) < 0) return FAIL;
    } else if (m == 0xc0 || m == 0xc2 || m == 0xc3) {
        f->kind = m == 0xc0 ? K_NIL : K_BOOL;
        text = m == 0xc0 ? "null" : m == 0xc2 ? "false" : "true";
        n = (Py_ssize_t)strlen(text);
        if (buf_put(raw, text, n) < 0) return FAIL;
    } else if ((m & 0xe0) == 0xa0 || m == 0xd9 || m == 0xda || m == 0xdb) {
        n = str_len(st, m);
        if (n < 0 || need(st, n)) return DECLINE;
        text = (const char *)st->p;
        st->p += n;
        if (valid_utf8(text, n) < 0) return DECLINE;
        f->kind = K_STR;
        if (json_string(raw, text, n) < 0) return FAIL;
    } else if ((m & 0xf0) == 0x80 || m == 0xde || m == 0xdf) {
        Py_ssize_t count;
        if (container_len(st, m, &count) < 0) return DECLINE;
        f->kind = K_MAP;
        f->empty = count == 0;
        Py_ssize_t child = path_len;
        if (depth > 0 && append_key(st, &child, ".", 1) < 0) return DECLINE;
        r = map_value(st, count, child, depth + 1);
        if (r < 0) return r;
    } else if ((m & 0xf0) == 0x90 || m == 0xdc || m == 0xdd) {
        Py_ssize_t count;
        if (container_len(st, m, &count) < 0) return DECLINE;
        if (depth == 0) return DECLINE; /* an event must be a map */
        f->kind = K_ARRAY;
        f->empty = count == 0;
        Py_ssize_t child = path_len;
        if (append_key(st, &child, ".", 1) < 0) return DECLINE;
        r = array_value(st, count, child, depth + 1);
        if (r < 0) return r;
    } else {
        return DECLINE; /* floats, binary, extension types, 0xc1 */
    }
    f->json_start = json_start;
    f->json_end = raw->len;
    if (text != NULL) {
        if (depth == 0) return DECLINE;
        f->s = text;
        f->n = n;
        r = leaf(st, path_len, text, n);
        if (r < 0) return r;
    }
    return 0;
}

/* --------------------------------------------------------------------- one event */

static inline int is_leafish(const Field *f) {
    return f->kind != K_NONE && (f->kind < K_MAP || f->empty);
}

/* The lower-cased copy of bytes [at, end) of a buffer, in place (str.lower for non-ASCII). */
static int lower_tail(Buf *b, Py_ssize_t at) {
    int ascii = 1;
    for (Py_ssize_t i = at; i < b->len; i++) {
        unsigned char c = (unsigned char)b->p[i];
        if (c >= 0x80) {
            ascii = 0;
            break;
        }
        if (c >= 'A' && c <= 'Z') b->p[i] = (char)(c + 32);
    }
    if (ascii) return 0;
    PyObject *u = PyUnicode_DecodeUTF8(b->p + at, b->len - at, "strict");
    if (u == NULL) return FAIL;
    PyObject *low = PyObject_CallMethod(u, "lower", NULL);
    Py_DECREF(u);
    if (low == NULL) return FAIL;
    Py_ssize_t n;
    const char *s = PyUnicode_AsUTF8AndSize(low, &n);
    int r = s == NULL ? FAIL : 0;
    if (s != NULL) {
        b->len = at;
        r = buf_put(b, s, n);
    }
    Py_DECREF(low);
    return r;
}

/* A field's text as level_of / service_of / text_of read it (f is leaf-ish). */
static void field_text(const Field *f, const char **s, Py_ssize_t *n) {
    if (f->kind == K_MAP || f->kind == K_ARRAY) {
        *s = f->kind == K_MAP ? "{}" : "[]";
        *n = 2;
    } else {
        *s = f->s;
        *n = f->n;
    }
}

static int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static int digits(const char *s, int n, int *out) {
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return 0;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 1;
}

/* RFC 3339 text of the usual form (YYYY-MM-DDTHH:MM:SS[.f{1,6}](Z|±HH:MM)) as microseconds
 * since the epoch; 0 when the text is of another form (Python reads it). */
static int rfc3339(const char *s, Py_ssize_t n, int64_t *out) {
    int y, mo, d, h, mi, se, oh = 0, om = 0, frac = 0;
    if (n < 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':')
        return 0;
    if (!digits(s, 4, &y) || !digits(s + 5, 2, &mo) || !digits(s + 8, 2, &d) ||
        !digits(s + 11, 2, &h) || !digits(s + 14, 2, &mi) || !digits(s + 17, 2, &se))
        return 0;
    Py_ssize_t i = 19;
    if (s[i] == '.') {
        int k = 0;
        for (i++; i < n && k < 7 && s[i] >= '0' && s[i] <= '9'; i++, k++)
            frac = frac * 10 + (s[i] - '0');
        if (k == 0 || k > 6) return 0;
        for (; k < 6; k++) frac *= 10;
    }
    int sign = 0;
    if (i == n - 1 && s[i] == 'Z') {
        sign = 1;
    } else if (i == n - 6 && (s[i] == '+' || s[i] == '-') && s[i + 3] == ':') {
        if (!digits(s + i + 1, 2, &oh) || !digits(s + i + 4, 2, &om)) return 0;
        if (oh > 23 || om > 59) return 0;
        sign = s[i] == '+' ? 1 : -1;
    } else {
        return 0;
    }
    static const int DAYS[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (y < 2 || y > 9998 || mo < 1 || mo > 12 || d < 1 || d > DAYS[mo - 1] || h > 23 ||
        mi > 59 || se > 59)
        return 0;
    if (mo == 2 && d == 29 && !(y % 4 == 0 && (y % 100 != 0 || y % 400 == 0))) return 0;
    int64_t secs = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se;
    secs -= (int64_t)sign * (oh * 3600 + om * 60);
    *out = secs * 1000000 + frac;
    return 1;
}

/* The event's time (parsing.time_of without an envelope): into micros, or handed to Python. */
static int event_time(State *st) {
    Field *f = NULL;
    for (int k = F_DT; k <= F_DATE; k++)
        if (st->fields[k].kind != K_NONE) {
            f = &st->fields[k];
            break;
        }
    int64_t at = st->received;
    if (f != NULL && f->kind == K_STR) {
        int64_t found;
        if (rfc3339(f->s, f->n, &found)) {
            at = found - st->received > MICROS_PER_DAY ? st->received : found;
        } else {
            PyObject *pair = Py_BuildValue("(ns#)", st->row, f->s, f->n);
            if (pair == NULL || PyList_Append(st->odd_times, pair) < 0) {
                Py_XDECREF(pair);
                return FAIL;
            }
            Py_DECREF(pair);
        }
    } else if (f != NULL && (f->kind == K_INT || f->kind == K_UINT)) {
        PyObject *number = f->kind == K_INT ? PyLong_FromLongLong(f->i)
                                            : PyLong_FromUnsignedLongLong(f->u);
        PyObject *pair = number ? Py_BuildValue("(nN)", st->row, number) : NULL;
        if (pair == NULL || PyList_Append(st->odd_times, pair) < 0) {
            Py_XDECREF(pair);
            return FAIL;
        }
        Py_DECREF(pair);
    } /* absent, null, true/false, a map or an array: the time of receipt */
    if (st->row >= st->micros_cap) {
        Py_ssize_t cap = st->micros_cap ? st->micros_cap * 2 : 1024;
        int64_t *p = PyMem_Realloc(st->micros, (size_t)cap * sizeof *p);
        if (p == NULL) {
            PyErr_NoMemory();
            return FAIL;
        }
        st->micros = p;
        st->micros_cap = cap;
    }
    st->micros[st->row] = at;
    return 0;
}

static int put_text(Column *c, const char *s, Py_ssize_t n, int lower) {
    Py_ssize_t at = c->data.len;
    if (buf_put(&c->data, s, n) < 0) return FAIL;
    if (lower && lower_tail(&c->data, at) < 0) return FAIL;
    return column_close_row(c, 1);
}

static int event(State *st) {
    if (st->row >= MAX_EVENTS) return DECLINE;
    memset(st->fields, 0, sizeof st->fields);
    st->in_service = 0;
    st->scratch.len = 0;
    st->leaves = 0;
    if (need(st, 1)) return DECLINE;
    unsigned char m = *st->p;
    if (!((m & 0xf0) == 0x80 || m == 0xde || m == 0xdf)) return DECLINE; /* not a map */
    int r = value(st, 0, 0, NULL);
    if (r < 0) return r;
    if (column_close_row(&st->raw, 1) < 0) return FAIL;
    Field *fs = st->fields;
    const char *s;
    Py_ssize_t n;

    /* level_of: the first of level, severity that is not null, a map or an array */
    Field *lv = NULL;
    for (int k = F_LEVEL; k <= F_SEVERITY; k++) {
        Field *f = &fs[k];
        if (f->kind != K_NONE && f->kind != K_NIL && f->kind != K_MAP && f->kind != K_ARRAY) {
            lv = f;
            break;
        }
    }
    if (put_text(&st->level, lv ? lv->s : "", lv ? lv->n : 0, 1) < 0) return FAIL;

    /* service_of */
    Field *sv = &fs[F_SERVICE];
    if (sv->kind == K_MAP) sv = &fs[F_SERVICE_NAME];
    if (sv->kind == K_NONE || sv->kind == K_NIL || sv->kind == K_MAP || sv->kind == K_ARRAY)
        sv = NULL;
    if (put_text(&st->service, sv ? sv->s : "", sv ? sv->n : 0, 0) < 0) return FAIL;

    /* message_of: the first of message, msg, log that is not null; a map or an array as
     * its JSON text */
    Field *mf = NULL;
    for (int k = F_MESSAGE; k <= F_LOG; k++)
        if (fs[k].kind != K_NONE && fs[k].kind != K_NIL) {
            mf = &fs[k];
            break;
        }
    const char *msg = "";
    Py_ssize_t msg_n = 0;
    if (mf != NULL && (mf->kind == K_MAP || mf->kind == K_ARRAY)) {
        msg = st->raw.data.p + mf->json_start; /* its JSON, within the event's */
        msg_n = mf->json_end - mf->json_start;
    } else if (mf != NULL) {
        msg = mf->s;
        msg_n = mf->n;
    }
    if (put_text(&st->body, msg, msg_n, 0) < 0) return FAIL;

    /* columns.text_of */
    int prefix = msg_n > 0;
    for (int k = F_MESSAGE; prefix && k <= F_LOG; k++) {
        if (!is_leafish(&fs[k])) continue;
        field_text(&fs[k], &s, &n);
        if (n == msg_n && !memcmp(s, msg, (size_t)n)) prefix = 0;
    }
    if (prefix && st->leaves == 0) return DECLINE; /* cannot happen: a message is a leaf */
    Buf *t = &st->text.data;
    Py_ssize_t at = t->len;
    if (buf_byte(t, SEP) < 0) return FAIL;
    if (prefix) {
        Py_ssize_t from = t->len;
        if (buf_put(t, msg, msg_n) < 0 || buf_byte(t, SEP) < 0) return FAIL;
        for (Py_ssize_t i = from; i < t->len - 1; i++)
            if (t->p[i] == SEP) t->p[i] = ' ';
    }
    if (buf_put(t, st->scratch.p, st->scratch.len) < 0 || buf_byte(t, SEP) < 0) return FAIL;
    if (lower_tail(t, at) < 0) return FAIL;
    if (column_close_row(&st->text, 1) < 0) return FAIL;

    if (event_time(st) < 0) return FAIL;
    st->row++;
    return 0;
}

/* ------------------------------------------------------------------------ body */

static int body(State *st) {
    while (st->p < st->end) {
        unsigned char m = *st->p;
        if ((m & 0xf0) == 0x90 || m == 0xdc || m == 0xdd) {
            st->p++;
            Py_ssize_t count;
            if (container_len(st, m, &count) < 0) return DECLINE;
            for (Py_ssize_t i = 0; i < count; i++) {
                int r = event(st); /* an item that is not a map: Python's (Fluent Bit, bare) */
                if (r < 0) return r;
            }
        } else {
            int r = event(st);
            if (r < 0) return r;
        }
    }
    return 0;
}

static PyObject *column_tuple(Column *c, Py_ssize_t rows, int with_path) {
    if (column_pad(c, rows) < 0) return NULL;
    PyObject *validity = c->nulls
        ? PyBytes_FromStringAndSize(c->validity.p, c->validity.len)
        : (Py_INCREF(Py_None), Py_None);
    if (validity == NULL) return NULL;
    if (with_path)
        return Py_BuildValue("(s#y#y#Nn)", c->path, c->path_len, c->offsets.p, c->offsets.len,
                             c->data.p ? c->data.p : "", c->data.len, validity, c->nulls);
    return Py_BuildValue("(y#y#Nn)", c->offsets.p, c->offsets.len, c->data.p ? c->data.p : "",
                         c->data.len, validity, c->nulls);
}

/* One state is kept between calls (taken while in use, so a call made meanwhile, from a
 * finalizer in another thread, makes its own): its buffers keep their room, and a body does
 * not fault in fresh pages for its megabyte of output. A state grown past KEEP_BYTES is freed. */
#define KEEP_BYTES (32 * 1024 * 1024)
static State *spare = NULL;

static void state_free(State *st) {
    if (st->cols != NULL) {
        for (Py_ssize_t k = 0; k < st->made; k++) column_free(&st->cols[k]);
        PyMem_Free(st->cols);
    }
    column_free(&st->raw);
    column_free(&st->text);
    column_free(&st->level);
    column_free(&st->service);
    column_free(&st->body);
    buf_free(&st->scratch);
    PyMem_Free(st->micros);
    PyMem_Free(st);
}

static State *state_take(void) {
    State *st = spare;
    spare = NULL;
    if (st == NULL) {
        st = PyMem_Calloc(1, sizeof *st);
        if (st == NULL) return NULL;
        st->cols = PyMem_Calloc(MAX_COLUMNS, sizeof(Column));
        if (st->cols == NULL) {
            PyMem_Free(st);
            return NULL;
        }
    }
    st->ncols = 0;
    st->row = 0;
    st->scratch.len = 0;
    memset(st->table, 0, sizeof st->table);
    if (column_reset(&st->raw) < 0 || column_reset(&st->text) < 0 ||
        column_reset(&st->level) < 0 || column_reset(&st->service) < 0 ||
        column_reset(&st->body) < 0) {
        state_free(st);
        return NULL;
    }
    return st;
}

static void state_give(State *st) {
    Py_ssize_t held = st->raw.data.cap + st->text.data.cap + st->body.data.cap +
                      st->level.data.cap + st->service.data.cap + st->scratch.cap;
    for (Py_ssize_t k = 0; k < st->made; k++)
        held += st->cols[k].data.cap + st->cols[k].offsets.cap + st->cols[k].validity.cap;
    if (spare == NULL && held <= KEEP_BYTES)
        spare = st;
    else
        state_free(st);
}

static PyObject *columns(PyObject *module, PyObject *args) {
    (void)module;
    Py_buffer data;
    long long received;
    if (!PyArg_ParseTuple(args, "y*L", &data, &received)) return NULL;
    State *st = state_take();
    PyObject *result = NULL;
    if (st == NULL) {
        PyBuffer_Release(&data);
        return PyErr_NoMemory();
    }
    st->p = data.buf;
    st->end = st->p + data.len;
    st->received = received;
    st->odd_times = PyList_New(0);
    int r = FAIL;
    if (st->odd_times == NULL) goto done;
    /* room for what a body usually makes, so the large buffers are not grown step by step */
    if (buf_reserve(&st->raw.data, data.len + data.len / 2 + 64) < 0 ||
        buf_reserve(&st->text.data, data.len + 64) < 0 ||
        buf_reserve(&st->body.data, data.len / 4 + 64) < 0)
        goto done;
    /* empty or only white space: Python's (no events) */
    int blank = 1;
    for (const unsigned char *q = st->p; q < st->end && blank; q++)
        blank = *q == ' ' || *q == '\t' || *q == '\n' || *q == '\r' || *q == '\v' || *q == '\f';
    r = blank ? DECLINE : body(st);
    if (r == 0 && st->row == 0) r = DECLINE;
    if (r == DECLINE) {
        result = (Py_INCREF(Py_None), Py_None);
        goto done;
    }
    if (r < 0) goto done;
    {
        Py_ssize_t rows = st->row;
        PyObject *micros = PyBytes_FromStringAndSize((const char *)st->micros,
                                                     rows * (Py_ssize_t)sizeof(int64_t));
        PyObject *attrs = PyList_New(st->ncols);
        PyObject *fixed = PyTuple_New(5);
        if (micros == NULL || attrs == NULL || fixed == NULL) {
            Py_XDECREF(micros);
            Py_XDECREF(attrs);
            Py_XDECREF(fixed);
            goto done;
        }
        Column *named[] = {&st->level, &st->service, &st->body, &st->raw, &st->text};
        int ok = 1;
        for (int k = 0; k < 5 && ok; k++) {
            PyObject *col = column_tuple(named[k], rows, 0);
            if (col == NULL) ok = 0;
            else PyTuple_SET_ITEM(fixed, k, col);
        }
        for (Py_ssize_t k = 0; k < st->ncols && ok; k++) {
            PyObject *col = column_tuple(&st->cols[k], rows, 1);
            if (col == NULL) ok = 0;
            else PyList_SET_ITEM(attrs, k, col);
        }
        if (!ok) {
            Py_DECREF(micros);
            Py_DECREF(attrs);
            Py_DECREF(fixed);
            goto done;
        }
        result = Py_BuildValue("(nNNNO)", rows, micros, fixed, attrs, st->odd_times);
    }
done:
    Py_CLEAR(st->odd_times);
    state_give(st);
    PyBuffer_Release(&data);
    return result;
}

static PyMethodDef METHODS[] = {
    {"columns", columns, METH_VARARGS,
     "columns(body, received_micros) -> (rows, micros, (level, service, body, raw, text), "
     "[(path, offsets, data, validity, nulls)], [(row, time value)]) or None"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef MODULE = {
    PyModuleDef_HEAD_INIT, "_msgpack_columns", NULL, -1, METHODS, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__msgpack_columns(void) { return PyModule_Create(&MODULE); }
