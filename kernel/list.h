/* list.h: circular doubly linked lists with a head node (as in Linux). */
#ifndef KERNEL_LIST_H
#define KERNEL_LIST_H

#include <stddef.h>
#include <stdbool.h>

struct list_head {
	struct list_head *next, *prev;
};

#define LIST_HEAD_INIT(name) { &(name), &(name) }
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#define list_entry(ptr, type, member) container_of(ptr, type, member)
#define list_first_entry(head, type, member) list_entry((head)->next, type, member)
#define list_for_each(pos, head) \
	for (pos = (head)->next; pos != (head); pos = pos->next)
#define list_for_each_safe(pos, tmp, head) \
	for (pos = (head)->next, tmp = pos->next; pos != (head); pos = tmp, tmp = pos->next)

static inline void list_init(struct list_head *h)
{
	h->next = h->prev = h;
}

static inline bool list_empty(const struct list_head *h)
{
	return h->next == h;
}

static inline void __list_add(struct list_head *n, struct list_head *prev, struct list_head *next)
{
	next->prev = n;
	n->next = next;
	n->prev = prev;
	prev->next = n;
}

/* Insert n right after head (stack order). */
static inline void list_add(struct list_head *n, struct list_head *head)
{
	__list_add(n, head, head->next);
}

/* Insert n right before head (queue order). */
static inline void list_add_tail(struct list_head *n, struct list_head *head)
{
	__list_add(n, head->prev, head);
}

/* Unlink e and leave it an empty list of its own (list_empty(e) is true). */
static inline void list_del(struct list_head *e)
{
	e->prev->next = e->next;
	e->next->prev = e->prev;
	e->next = e->prev = e;
}

/* How many entries head has (a walk: the caller holds the list's lock). */
static inline unsigned list_count(const struct list_head *head)
{
	unsigned n = 0;
	for (const struct list_head *pos = head->next; pos != head; pos = pos->next)
		n++;
	return n;
}

#endif
