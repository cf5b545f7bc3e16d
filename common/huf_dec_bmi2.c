/*
 * huf_dec_bmi2.c - the lane loop of huf_dec.c built with BMI2 (compiled
 * with -mbmi2; called only where the CPU has it).
 */
#define HUF_RUN_GROUP wlz_huf_run_group_bmi2
#include "common/huf_lanes_impl.h"
