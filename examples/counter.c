/*
 * A counter shared by several OS threads, each holding a capability of the
 * threaded runtime (pkg-config hsrts-thr), the way a compiler's code for
 *
 *     main = do
 *         ref <- newIORef (0 :: Int)
 *         w   <- mkWeakIORef ref (putStrLn "counter finalized")
 *         forM_ [1..threads] $ \_ ->
 *             forkOS (replicateM_ n (atomicModifyIORef' ref (\x -> (x + 1, ()))))
 *         ...
 *
 * would use the runtime's interface for mutable objects:
 *  - the shared IORef is a MutVar reached through a stable pointer, and is
 *    updated with compare-and-swap (rts_cas_mut_var, GHC's casMutVar#): a
 *    fresh box is allocated *before* the CAS loop, so nothing between the
 *    read and the CAS can collect and move the value just read;
 *  - a loop that computes without allocating polls HS_SAFEPOINT, so a
 *    collection another thread asks for is not held up by it;
 *  - a weak pointer keyed on the MutVar answers its value while the MutVar
 *    lives (rts_deref_weak) and runs its C finalizer exactly once after.
 * Usage: counter [threads [increments]]   (defaults 4, 100000). Prints the
 * final count, which must be threads * increments, and the weak pointer's
 * answers.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "prelude.h"

static HsStablePtr counter_sp;
static long increments;
static int finalized;

static void on_finalize(void *env)
{
    (void)env;
    finalized++;
}

/* Some arithmetic that never allocates: it polls instead. */
static StgWord busy_work(Capability *cap, StgWord seed)
{
    for (int i = 0; i < 64; i++) {
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        HS_SAFEPOINT(cap);
    }
    return seed;
}

static void *worker(void *arg)
{
    StgWord seed = (StgWord)(uintptr_t)arg;
    Capability *cap = rts_lock();
    StgClosure **r = rts_push_roots(cap, 2); /* r[0]: the MutVar; r[1]: our new box */
    r[0] = (StgClosure *)deRefStablePtr(counter_sp);
    for (long i = 0; i < increments; i++) {
        seed = busy_work(cap, seed);
        r[1] = mk_int(cap, 0); /* may collect: before the read */
        for (;;) {
            StgClosure *old = rts_read_mut_var((StgMutVar *)r[0]);
            ((StgInt *)UNTAG(r[1])->payload)[0] = int_val(old) + 1; /* not shared yet */
            if (rts_cas_mut_var(cap, (StgMutVar *)r[0], old, r[1], NULL) == 0)
                break; /* another thread got in first: read again */
        }
    }
    rts_pop_roots(cap, r);
    rts_unlock(cap);
    hs_thread_done();
    return NULL;
}

int main(int argc, char *argv[])
{
    /* -N and the other options a threaded program is run with are "unsafe" by GHC's rules. */
    RtsConfig conf = defaultRtsConfig;
    conf.rts_opts_enabled = RtsOptsAll;
    hs_init_ghc(&argc, &argv, conf);
    int threads = argc > 1 ? atoi(argv[1]) : 4;
    increments = argc > 2 ? atol(argv[2]) : 100000;
    if (threads < 1 || threads > 64 || increments < 0) {
        fprintf(stderr, "usage: counter [threads (1-64) [increments]]\n");
        return 2;
    }

    Capability *cap = rts_lock();
    StgClosure **r = rts_push_roots(cap, 1);
    r[0] = mk_int(cap, 0);
    StgMutVar *mv = rts_new_mut_var(cap, r[0]);
    counter_sp = getStablePtr((StgPtr)mv);
    StgWeak *w = rts_mk_weak(cap, (StgClosure *)mv, (StgClosure *)mv, on_finalize, NULL);
    HsStablePtr weak_sp = getStablePtr((StgPtr)w); /* the weak object itself must stay reachable */
    rts_pop_roots(cap, r);
    rts_unlock(cap);

    pthread_t th[64];
    for (int t = 0; t < threads; t++)
        if (pthread_create(&th[t], NULL, worker, (void *)(uintptr_t)(t + 1)) != 0) {
            fprintf(stderr, "counter: pthread_create failed\n");
            return 1;
        }
    for (int t = 0; t < threads; t++)
        pthread_join(th[t], NULL);

    cap = rts_lock();
    StgMutVar *counter = (StgMutVar *)deRefStablePtr(counter_sp);
    printf("count: %ld\n", (long)int_val(rts_read_mut_var(counter)));
    StgClosure *value;
    w = (StgWeak *)deRefStablePtr(weak_sp);
    printf("weak pointer while the counter lives: %s\n",
           rts_deref_weak(cap, w, &value) && value == (StgClosure *)counter ? "the counter"
                                                                            : "WRONG");
    freeStablePtr(counter_sp); /* the counter is garbage from here */
    rts_unlock(cap);
    performMajorGC();
    cap = rts_lock();
    w = (StgWeak *)deRefStablePtr(weak_sp);
    printf("weak pointer after: %s; finalizer ran %d time(s)\n",
           rts_deref_weak(cap, w, &value) ? "still alive" : "dead", finalized);
    freeStablePtr(weak_sp);
    rts_unlock(cap);
    hs_exit();
    return 0;
}
