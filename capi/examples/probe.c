/*
 * probe.c: probe togyz-tb tables from C.
 *
 *   probe TABLES_DIR [FEN]              value and ranked moves of FEN
 *   probe --threads N TABLES_DIR [FEN]  the same answer from N threads at
 *                                       once, each checked against it
 *
 * FEN defaults to 7,2S,1/8,2S 79 79 S 1 (a loss in 4 for South). Above the
 * tables the result is proven by search (togyz_tb_solve) within 5 s.
 * Build (from the repository root, after cargo build --release -p togyz-tb-c):
 *   cc -std=c11 -Icapi/include capi/examples/probe.c -Ltarget/release \
 *      -ltogyz_tb -Wl,-rpath,$PWD/target/release -lpthread -o probe
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "togyz_tb.h"

#define ROUNDS 2000

static const char *wdl_name(TogyzWdl wdl) {
    switch (wdl) {
    case TOGYZ_WDL_WIN: return "win";
    case TOGYZ_WDL_LOSS: return "loss";
    default: return "draw";
    }
}

static void print_value(TogyzValue v) {
    if (v.metric == TOGYZ_METRIC_NONE)
        printf("%s", wdl_name(v.wdl));
    else
        printf("%s in %u", wdl_name(v.wdl), (unsigned)v.distance);
}

/* Reports a failed call with the library's message for this thread. */
static int fail(const char *what, TogyzStatus status) {
    fprintf(stderr, "probe: %s failed (status %d): %s\n", what, (int)status,
            togyz_tb_last_error());
    return 1;
}

/* One complete answer: the value and the ranked moves. */
typedef struct {
    TogyzValue value;
    TogyzRootMove moves[TOGYZ_MAX_MOVES];
    size_t count;
} Answer;

static TogyzStatus answer(const TogyzTb *tb, const TogyzPosition *pos, Answer *out) {
    TogyzStatus s = togyz_tb_value(tb, pos, &out->value);
    if (s != TOGYZ_STATUS_OK)
        return s;
    return togyz_tb_root(tb, pos, out->moves, TOGYZ_MAX_MOVES, &out->count);
}

static int same_answer(const Answer *a, const Answer *b) {
    if (memcmp(&a->value, &b->value, sizeof a->value) != 0 || a->count != b->count)
        return 0;
    for (size_t i = 0; i < a->count; i++) {
        const TogyzRootMove *x = &a->moves[i], *y = &b->moves[i];
        if (x->hole != y->hole || strcmp(x->traditional, y->traditional) != 0 ||
            memcmp(&x->value, &y->value, sizeof x->value) != 0)
            return 0;
    }
    return 1;
}

typedef struct {
    const TogyzTb *tb;
    TogyzPosition pos;
    const Answer *expected;
    int id;
    int ok;
} Job;

/* Probes the position ROUNDS times (value, ranked moves, WDL), checking
 * each answer against the one-thread answer. */
static void *worker(void *arg) {
    Job *job = arg;
    job->ok = 0;
    /* A failure here must not show in another thread's message. */
    TogyzPosition scratch;
    if (togyz_position_from_fen("not a fen", &scratch) != TOGYZ_STATUS_BAD_FEN ||
        togyz_tb_last_error()[0] == '\0')
        return NULL;
    for (int r = 0; r < ROUNDS; r++) {
        Answer a;
        if (answer(job->tb, &job->pos, &a) != TOGYZ_STATUS_OK || !same_answer(&a, job->expected)) {
            fprintf(stderr, "thread %d: wrong answer in round %d: %s\n", job->id, r,
                    togyz_tb_last_error());
            return NULL;
        }
        TogyzWdl wdl;
        if (togyz_tb_wdl(job->tb, &job->pos, &wdl) != TOGYZ_STATUS_OK || wdl != a.value.wdl) {
            fprintf(stderr, "thread %d: wrong WDL in round %d\n", job->id, r);
            return NULL;
        }
    }
    job->ok = 1;
    return NULL;
}

/* Above the tables: proof search within 5 s, the answer said as proven
 * only when it is. */
static int solve(const TogyzTb *tb, const TogyzPosition *pos, const char *fen) {
    TogyzSearchResult r;
    TogyzStatus s = togyz_tb_solve(tb, pos, 5.0, 0, &r);
    if (s != TOGYZ_STATUS_OK)
        return fail("togyz_tb_solve", s);
    printf("position: %s\n", fen);
    if (r.proven)
        printf("value: %s, proven by search (%llu nodes, %.2f s; tables up to %u stones)\n",
               wdl_name(r.lower), (unsigned long long)r.nodes, r.seconds,
               (unsigned)r.table_stones);
    else
        printf("value: not proven in %.2f s: between %s and %s\n", r.seconds,
               wdl_name(r.lower), wdl_name(r.upper));
    if (r.best_hole != 0)
        printf("best move: %s (hole %u)\n", r.best_traditional, (unsigned)r.best_hole);
    return 0;
}

int main(int argc, char **argv) {
    int threads = 0;
    int arg = 1;
    if (arg + 1 < argc && strcmp(argv[arg], "--threads") == 0) {
        threads = atoi(argv[arg + 1]);
        if (threads < 1 || threads > 64) {
            fprintf(stderr, "probe: --threads takes 1..64\n");
            return 2;
        }
        arg += 2;
    }
    if (arg >= argc || argc - arg > 2) {
        fprintf(stderr, "usage: probe [--threads N] TABLES_DIR [FEN]\n");
        return 2;
    }
    const char *dirs[1] = {argv[arg]};
    const char *fen = arg + 1 < argc ? argv[arg + 1] : "7,2S,1/8,2S 79 79 S 1";

    TogyzTb *tb = NULL;
    TogyzStatus s = togyz_tb_open(dirs, 1, TOGYZ_DEFAULT_CACHE_BYTES, &tb);
    if (s != TOGYZ_STATUS_OK)
        return fail("togyz_tb_open", s);
    uint32_t complete = 0;
    togyz_tb_complete_up_to(tb, &complete);
    printf("togyz-tb %s, tables for 1..%u stones\n", togyz_tb_version(), (unsigned)complete);

    TogyzPosition pos;
    s = togyz_position_from_fen(fen, &pos);
    if (s != TOGYZ_STATUS_OK) {
        togyz_tb_close(tb);
        return fail("togyz_position_from_fen", s);
    }
    char back[TOGYZ_FEN_MAX];
    s = togyz_position_to_fen(&pos, back, sizeof back);
    if (s != TOGYZ_STATUS_OK) {
        togyz_tb_close(tb);
        return fail("togyz_position_to_fen", s);
    }
    Answer a;
    s = answer(tb, &pos, &a);
    if (s == TOGYZ_STATUS_MISSING_TABLE) {
        int status = solve(tb, &pos, back);
        togyz_tb_close(tb);
        return status;
    }
    if (s != TOGYZ_STATUS_OK) {
        togyz_tb_close(tb);
        return fail("probe", s);
    }
    printf("position: %s\n", back);
    printf("value: ");
    print_value(a.value);
    printf("\nmoves, best first:\n");
    for (size_t i = 0; i < a.count; i++) {
        printf("  %-4s hole %u  %-5s ", a.moves[i].traditional, (unsigned)a.moves[i].hole,
               a.moves[i].uci);
        print_value(a.moves[i].value);
        printf("\n");
    }

    int status = 0;
    if (threads > 0) {
        pthread_t ids[64];
        Job jobs[64];
        for (int i = 0; i < threads; i++) {
            jobs[i] = (Job){.tb = tb, .pos = pos, .expected = &a, .id = i, .ok = 0};
            if (pthread_create(&ids[i], NULL, worker, &jobs[i]) != 0) {
                fprintf(stderr, "probe: cannot start thread %d\n", i);
                threads = i;
                status = 1;
                break;
            }
        }
        int agreed = 0;
        for (int i = 0; i < threads; i++) {
            pthread_join(ids[i], NULL);
            agreed += jobs[i].ok;
        }
        printf("%d threads x %d rounds: %d agreed\n", threads, ROUNDS, agreed);
        if (agreed != threads)
            status = 1;
    }
    togyz_tb_close(tb);
    return status;
}
