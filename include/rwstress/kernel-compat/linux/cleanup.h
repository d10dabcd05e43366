/* The kernel-compat layer's <linux/cleanup.h>: scope-based cleanup (guard(),
 * scoped_guard(), __free()) on GCC's cleanup attribute, with the kernel's
 * names for the classes a DEFINE_* macro makes, so that the kernel's own
 * DEFINE_GUARD/DEFINE_LOCK_GUARD_* lines compile as they are.
 *
 * A class NAME is a type class_NAME_t, a constructor
 * class_NAME_constructor(args) and a destructor class_NAME_destructor(&v). */
/* The layer first (it includes this file where its part belongs). */
#include <rwstress/kernel.h>
#ifndef RWSTRESS_LINUX_CLEANUP_H
#define RWSTRESS_LINUX_CLEANUP_H

#define __rwsk_cat2(a, b) a##b
#define __rwsk_cat(a, b) __rwsk_cat2(a, b)
#define __rwsk_unique(prefix) __rwsk_cat(prefix, __COUNTER__)

/* __free(NAME): run NAME's cleanup on the variable when it leaves scope. */
#define DEFINE_FREE(_name, _type, _free) \
  static inline void __free_##_name(void *p) { _type _T = *(_type *)p; _free; }
#define __free(_name) __attribute__((__cleanup__(__free_##_name)))
#define __get_and_null(p, nullvalue) ({ __typeof__(p) __v = (p); (p) = (nullvalue); __v; })
#define no_free_ptr(p) ((__typeof__(p))__get_and_null(p, NULL))
#define return_ptr(p) return no_free_ptr(p)
#define retain_and_null_ptr(p) ((void)__get_and_null(p, NULL))

/* CLASS(NAME, var)(args): a variable whose destructor runs at scope end. */
#define DEFINE_CLASS(_name, _type, _exit, _init, _init_args...)                        \
  typedef _type class_##_name##_t;                                                     \
  static inline void class_##_name##_destructor(_type *p) { _type _T = *p; _exit; }    \
  static inline _type class_##_name##_constructor(_init_args) { _type t = _init; return t; }
#define CLASS(_name, var)                                                              \
  class_##_name##_t var __attribute__((__cleanup__(class_##_name##_destructor))) =    \
      class_##_name##_constructor

/* A guard's pointer: NULL when a conditional guard did not take the lock. */
#define DEFINE_GUARD(_name, _type, _lock, _unlock)                                     \
  DEFINE_CLASS(_name, _type, if (_T) { _unlock; }, ({ _lock; _T; }), _type _T);       \
  static inline void *class_##_name##_lock_ptr(class_##_name##_t *_T) { return (void *)*_T; }
#define DEFINE_GUARD_COND(_name, _ext, _condlock, ...)                                 \
  typedef class_##_name##_t class_##_name##_ext##_t;                                   \
  static inline void class_##_name##_ext##_destructor(class_##_name##_t *p) {          \
    class_##_name##_destructor(p);                                                     \
  }                                                                                    \
  static inline class_##_name##_t class_##_name##_ext##_constructor(class_##_name##_t _T) { \
    class_##_name##_t t = ({ void *_t = _T; if (_T && !(_condlock)) _t = NULL; _t; }); \
    return t;                                                                          \
  }                                                                                    \
  static inline void *class_##_name##_ext##_lock_ptr(class_##_name##_t *_T) {          \
    return class_##_name##_lock_ptr(_T);                                               \
  }

/* DEFINE_LOCK_GUARD_0/1: a guard over a struct holding the lock pointer
 * (none for _0), so that _T->lock names it in the lock/unlock code. */
#define __DEFINE_LOCK_GUARD_STRUCT(_name, _type, ...) \
  typedef struct { _type *lock; __VA_ARGS__; } class_##_name##_t;
#define __DEFINE_LOCK_GUARD_TAIL(_name, _type, _unlock)                                \
  static inline void class_##_name##_destructor(class_##_name##_t *_T) {              \
    if (_T->lock) { _unlock; }                                                         \
  }                                                                                    \
  static inline void *class_##_name##_lock_ptr(class_##_name##_t *_T) { return (void *)_T->lock; }
#define DEFINE_LOCK_GUARD_1(_name, _type, _lock, _unlock, ...)                         \
  __DEFINE_LOCK_GUARD_STRUCT(_name, _type, __VA_ARGS__)                                \
  __DEFINE_LOCK_GUARD_TAIL(_name, _type, _unlock)                                      \
  static inline class_##_name##_t class_##_name##_constructor(_type *l) {             \
    class_##_name##_t _t = {.lock = l}, *_T = &_t;                                     \
    _lock;                                                                             \
    return _t;                                                                         \
  }
#define DEFINE_LOCK_GUARD_0(_name, _lock, _unlock, ...)                                \
  __DEFINE_LOCK_GUARD_STRUCT(_name, void, __VA_ARGS__)                                 \
  __DEFINE_LOCK_GUARD_TAIL(_name, void, _unlock)                                       \
  static inline class_##_name##_t class_##_name##_constructor(void) {                 \
    class_##_name##_t _t = {.lock = (void *)1}, *_T = &_t;                             \
    (void)_T;                                                                          \
    _lock;                                                                             \
    return _t;                                                                         \
  }
#define DEFINE_LOCK_GUARD_1_COND(_name, _ext, _condlock, ...)                          \
  typedef class_##_name##_t class_##_name##_ext##_t;                                   \
  static inline void class_##_name##_ext##_destructor(class_##_name##_t *_T) {        \
    class_##_name##_destructor(_T);                                                    \
  }                                                                                    \
  static inline class_##_name##_t class_##_name##_ext##_constructor(                  \
      __typeof__(((class_##_name##_t *)0)->lock) l) {                                  \
    class_##_name##_t _t = {.lock = l}, *_T = &_t;                                     \
    if (_T->lock && !(_condlock)) _T->lock = NULL;                                     \
    return _t;                                                                         \
  }                                                                                    \
  static inline void *class_##_name##_ext##_lock_ptr(class_##_name##_t *_T) {          \
    return class_##_name##_lock_ptr(_T);                                               \
  }
/* 7.x's context-analysis attributes on guards: nothing to GCC. */
#define DECLARE_LOCK_GUARD_0_ATTRS(...)
#define DECLARE_LOCK_GUARD_1_ATTRS(...)
#define WITH_LOCK_GUARD_1_ATTRS(_name, _T) class_##_name##_constructor(_T)

/* guard(NAME)(args): held to the end of the enclosing scope. */
#define guard(_name) CLASS(_name, __rwsk_unique(__rwsk_guard_))
/* scoped_guard(NAME, args) { body }: held for the body; a break leaves it.
 * A conditional guard (NAME_try, ...) skips the body when the lock was not
 * taken. The outer loop runs once whether the body ends or breaks. */
#define __rwsk_scoped_guard(_name, _once, _scope, ...)                                 \
  for (int _once = 0; _once < 1; _once++)                                              \
    for (CLASS(_name, _scope)(__VA_ARGS__); _once < 1 && class_##_name##_lock_ptr(&_scope); \
         _once++)
#define scoped_guard(_name, ...)                                                       \
  __rwsk_scoped_guard(_name, __rwsk_unique(__rwsk_once_), __rwsk_unique(__rwsk_scope_), \
                      __VA_ARGS__)
/* scoped_cond_guard(NAME, fail, args) { body }: fail (a statement) runs
 * when the lock was not taken. */
#define __rwsk_scoped_cond_guard(_name, _fail, _once, _scope, ...)                     \
  for (int _once = 0; _once < 1; _once++)                                              \
    for (CLASS(_name, _scope)(__VA_ARGS__); _once < 1; _once++)                        \
      if (!class_##_name##_lock_ptr(&_scope)) {                                        \
        _fail;                                                                         \
      } else
#define scoped_cond_guard(_name, _fail, ...)                                           \
  __rwsk_scoped_cond_guard(_name, _fail, __rwsk_unique(__rwsk_once_),                  \
                           __rwsk_unique(__rwsk_scope_), __VA_ARGS__)
#endif
