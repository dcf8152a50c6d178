/*
 * The roots of a collection. See Note [The root visitor] in roots.h.
 */
#include "sm/roots.h"

#include "sm/statics.h"
#include "sm/storage.h"
#include "sm/weak.h"
#include "stable.h"
#include "threads.h"

typedef struct {
    RootVisitor *v;
    RootKind kind;
} Forward;

static void forward(void *ctx, StgClosure **slot)
{
    Forward *f = ctx;
    f->v->slot(f->v, slot, f->kind);
}

void roots_visit(RootVisitor *v, unsigned kinds)
{
    if (kinds & ROOT_CAPABILITY) {
        for (uint32_t c = 0; c < n_capabilities; c++) {
            Capability *cap = capabilities[c];
            if (cap->r.tso)
                v->slot(v, (StgClosure **)&cap->r.tso, ROOT_CAPABILITY);
            for (uint32_t i = 0; i < sizeof cap->scratch / sizeof cap->scratch[0]; i++)
                v->slot(v, &cap->scratch[i], ROOT_CAPABILITY);
        }
    }
    Forward f = {v, ROOT_THREAD};
    if (kinds & ROOT_THREAD)
        threads_visit(forward, &f);
    f.kind = ROOT_STABLE_PTR;
    if (kinds & ROOT_STABLE_PTR)
        stable_ptr_visit(forward, &f);
    f.kind = ROOT_CAF;
    if (kinds & ROOT_CAF)
        statics_visit_caf_roots(forward, &f);
    f.kind = ROOT_WEAK;
    if (kinds & ROOT_WEAK)
        weak_visit(forward, &f);
}

void roots_visit_remembered_cap(bdescr ***saved, uint32_t c, uint32_t N,
                                void (*object)(void *ctx, StgClosure *q, uint32_t gen), void *ctx)
{
    for (uint32_t g = N + 1; g < n_generations; g++)
        for (bdescr *bd = saved[c][g]; bd; bd = bd->link)
            for (StgPtr e = bd->start; e < bd->free; e++)
                object(ctx, (StgClosure *)*e, g);
}

void roots_visit_remembered(bdescr ***saved, uint32_t N,
                            void (*object)(void *ctx, StgClosure *q, uint32_t gen), void *ctx)
{
    for (uint32_t c = 0; c < n_capabilities; c++)
        roots_visit_remembered_cap(saved, c, N, object, ctx);
}
