/* The kernel-compat layer's <linux/list.h>: struct list_head and its operations.
 * Part of <rwstress/kernel.h>, which includes it where it belongs: the
 * layer first, then this part. */
#include <rwstress/kernel.h>
#ifndef RWSTRESS_LAYER_LINUX_LIST_H
#define RWSTRESS_LAYER_LINUX_LIST_H

/* ---- Lists ------------------------------------------------------------------ */

struct list_head {
  struct list_head *next, *prev;
};
#define LIST_HEAD_INIT(name) { &(name), &(name) }
#define LIST_HEAD(name) struct list_head name = LIST_HEAD_INIT(name)
static inline void INIT_LIST_HEAD(struct list_head *l) {
  WRITE_ONCE(l->next, l);
  l->prev = l;
}
static inline void __list_add(struct list_head *n, struct list_head *prev, struct list_head *next) {
  next->prev = n;
  n->next = next;
  n->prev = prev;
  WRITE_ONCE(prev->next, n);
}
static inline void list_add(struct list_head *n, struct list_head *head) {
  __list_add(n, head, head->next);
}
static inline void list_add_tail(struct list_head *n, struct list_head *head) {
  __list_add(n, head->prev, head);
}
static inline void __list_del(struct list_head *prev, struct list_head *next) {
  next->prev = prev;
  WRITE_ONCE(prev->next, next);
}
/* A deleted entry points at poison, as in the kernel: a second list_del or
 * a walk through it faults instead of corrupting the list quietly. */
#define LIST_POISON1 ((struct list_head *)0x100)
#define LIST_POISON2 ((struct list_head *)0x122)
static inline void list_del(struct list_head *e) {
  __list_del(e->prev, e->next);
  e->next = LIST_POISON1;
  e->prev = LIST_POISON2;
}
static inline void list_del_init(struct list_head *e) {
  __list_del(e->prev, e->next);
  INIT_LIST_HEAD(e);
}
static inline void list_move_tail(struct list_head *e, struct list_head *head) {
  __list_del(e->prev, e->next);
  list_add_tail(e, head);
}
static inline int list_empty(const struct list_head *head) { return READ_ONCE(head->next) == head; }
static inline int list_is_singular(const struct list_head *head) {
  return !list_empty(head) && head->next == head->prev;
}
static inline int list_is_last(const struct list_head *e, const struct list_head *head) {
  return e->next == head;
}
#define list_entry(ptr, type, member) container_of(ptr, type, member)
#define list_first_entry(ptr, type, member) list_entry((ptr)->next, type, member)
#define list_last_entry(ptr, type, member) list_entry((ptr)->prev, type, member)
#define list_first_entry_or_null(ptr, type, member)                       \
  ({                                                                      \
    struct list_head *__rwsk_h = (ptr);                                   \
    struct list_head *__rwsk_n = READ_ONCE(__rwsk_h->next);               \
    __rwsk_n != __rwsk_h ? list_entry(__rwsk_n, type, member) : NULL;     \
  })
#define list_next_entry(pos, member) list_entry((pos)->member.next, __typeof__(*(pos)), member)
#define list_prev_entry(pos, member) list_entry((pos)->member.prev, __typeof__(*(pos)), member)
#define list_entry_is_head(pos, head, member) (&(pos)->member == (head))
#define list_for_each(pos, head) for (pos = (head)->next; pos != (head); pos = pos->next)
#define list_for_each_entry(pos, head, member)                                  \
  for (pos = list_first_entry(head, __typeof__(*pos), member);                   \
       !list_entry_is_head(pos, head, member); pos = list_next_entry(pos, member))
#define list_for_each_entry_safe(pos, n, head, member)                          \
  for (pos = list_first_entry(head, __typeof__(*pos), member),                  \
      n = list_next_entry(pos, member);                                         \
       !list_entry_is_head(pos, head, member); pos = n, n = list_next_entry(n, member))

#endif /* RWSTRESS_LAYER_LINUX_LIST_H */
