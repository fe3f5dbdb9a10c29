/*
 * expo_interference.h - the interference analysis' result as metric
 * families, written beside the snapshot's (expo.c calls it).
 */
#ifndef PMU_EXPO_INTERFERENCE_H
#define PMU_EXPO_INTERFERENCE_H

#include "daemon/expo/expo_buf.h"

struct interference_result;

/*
 * The interference families of result r (expo_interference.c): the
 * pmu_cgroup_* ones always, pmu_exporter_interference_* with
 * exporter_metrics.  r NULL: the analysis is off.
 */
void expo_interference(struct expo_buf *b,
    const struct interference_result *r, int exporter_metrics);

#endif
