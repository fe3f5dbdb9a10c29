/*
 * default.h - the embedded configurations (default.c).
 * Design: docs/containers.md, "Layouts known out of the box".
 */
#ifndef PMU_CONFIG_DEFAULT_H
#define PMU_CONFIG_DEFAULT_H

/* The embedded defaults: hardware IPC, and a software-only fallback. */
extern const char config_default_yaml[];
extern const char config_fallback_yaml[];

#endif
