/*
 * What holding an emulated reply costs the host (issue 24): 32 threads each wait 40 us per
 * "reply" and then do about 1 us of work, for 3 s, either each on its own absolute
 * clock_nanosleep (mode 0: how `ssdlab serve --latency emulate` holds a reply) or parked on a
 * futex and woken by one dispatcher thread that sleeps to the earliest due time (mode 1: one
 * timer for many replies). Prints wake-ups per second and CPU microseconds per wake-up.
 *
 *   gcc -O2 -Wall -pthread scripts/bench_reply_hold.c -o /tmp/bench_reply_hold
 *   flock -x /work/.heavy.lock sh -c '/tmp/bench_reply_hold 0; /tmp/bench_reply_hold 1'
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define THREADS 32
#define HOLD_NS 40000
#define RUN_NS 3000000000ull

static int mode;
static uint64_t end_ns;
static atomic_long wakes;
static _Atomic uint32_t flag[THREADS];
static _Atomic uint64_t due[THREADS];

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000ull + t.tv_nsec;
}

static void sleep_until(uint64_t ns) {
    struct timespec t = {ns / 1000000000ull, ns % 1000000000ull};
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, 0);
}

static long futex(void *addr, int op, int val) { return syscall(SYS_futex, addr, op, val, 0, 0, 0); }

static void *replier(void *arg) {
    long i = (long)arg;
    prctl(PR_SET_TIMERSLACK, 1);
    while (now_ns() < end_ns) {
        uint64_t d = now_ns() + HOLD_NS;
        if (mode == 0) {
            sleep_until(d);
        } else {
            atomic_store(&flag[i], 0);
            atomic_store(&due[i], d);
            while (atomic_load(&flag[i]) == 0)
                futex(&flag[i], FUTEX_WAIT_PRIVATE, 0);
        }
        atomic_fetch_add(&wakes, 1);
        volatile int x = 0;
        for (int k = 0; k < 2000; k++)
            x += k;
    }
    if (mode == 1)
        atomic_store(&due[i], UINT64_MAX);
    return 0;
}

static void *dispatcher(void *arg) {
    (void)arg;
    prctl(PR_SET_TIMERSLACK, 1);
    while (now_ns() < end_ns + 1000000) {
        uint64_t t = now_ns(), next = UINT64_MAX;
        for (int i = 0; i < THREADS; i++) {
            uint64_t d = atomic_load(&due[i]);
            if (d == 0)
                continue;
            if (d <= t) {
                atomic_store(&due[i], 0);
                atomic_store(&flag[i], 1);
                futex(&flag[i], FUTEX_WAKE_PRIVATE, 1);
            } else if (d < next) {
                next = d;
            }
        }
        sleep_until(next == UINT64_MAX ? now_ns() + 20000 : next);
    }
    return 0;
}

int main(int argc, char **argv) {
    mode = argc > 1 ? atoi(argv[1]) : 0;
    end_ns = now_ns() + RUN_NS;
    pthread_t threads[THREADS + 1];
    for (long i = 0; i < THREADS; i++)
        pthread_create(&threads[i], 0, replier, (void *)i);
    if (mode == 1)
        pthread_create(&threads[THREADS], 0, dispatcher, 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(threads[i], 0);
    if (mode == 1)
        pthread_join(threads[THREADS], 0);
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    double cpu = r.ru_utime.tv_sec + r.ru_utime.tv_usec / 1e6 + r.ru_stime.tv_sec + r.ru_stime.tv_usec / 1e6;
    printf("mode %d (%s): %ld wake-ups, %.0f per s, CPU %.2f s, %.2f us per wake-up\n", mode, mode ? "futex + dispatcher" : "own clock_nanosleep", (long)wakes,
           wakes / (RUN_NS / 1e9), cpu, cpu * 1e6 / wakes);
    return 0;
}
