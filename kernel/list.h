/*
 * list.h: circular doubly linked lists with a head node, and hash chains
 * (hlist) that end in NULL, as in Linux.
 */
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

/*
 * A list that readers walk under rcu_read_lock while writers (holding the
 * list's lock) add and remove entries; an entry never moves to another
 * list, so a reader still ends at the head it started from.  The add
 * publishes the entry with a release store once its links are set; the
 * delete leaves the entry's next alone for a reader standing on it.
 */
static inline void list_add_tail_rcu(struct list_head *n, struct list_head *head)
{
	struct list_head *prev = head->prev;
	n->next = head;
	n->prev = prev;
	head->prev = n;
	__atomic_store_n(&prev->next, n, __ATOMIC_RELEASE);
}

static inline void list_del_rcu(struct list_head *e)
{
	__atomic_store_n(&e->prev->next, e->next, __ATOMIC_RELAXED);
	e->next->prev = e->prev;
	e->prev = NULL;	/* not on the list; next stays */
}

#define list_for_each_rcu(pos, head) \
	for (pos = __atomic_load_n(&(head)->next, __ATOMIC_ACQUIRE); pos != (head); \
	     pos = __atomic_load_n(&pos->next, __ATOMIC_ACQUIRE))

/* How many entries head has (a walk: the caller holds the list's lock). */
static inline unsigned list_count(const struct list_head *head)
{
	unsigned n = 0;
	for (const struct list_head *pos = head->next; pos != head; pos = pos->next)
		n++;
	return n;
}

/*
 * Hash chains: a head of one pointer, nodes linked forward and ending in
 * NULL, each with the address of the pointer that points at it (pprev) so
 * that it leaves in one step.  Unlike a circular list, a chain can be read
 * without its lock (under RCU, kernel/rcu.h): a reader on a node that
 * moves to another chain meanwhile still reaches an end, a NULL, instead
 * of running into another chain's head and taking it for a node.
 *
 * Writers hold the chain's lock.  The _rcu calls keep lockless readers
 * safe: an add publishes the node with a release store after its next
 * is set (rcu_assign_pointer), and a delete leaves the node's next as it
 * was, so a reader standing on it walks on.  Links that readers follow
 * are written with single atomic stores: no reader sees half a pointer.
 */
struct hlist_node {
	struct hlist_node *next, **pprev;   /* pprev NULL: on no chain */
};

struct hlist_head {
	struct hlist_node *first;
};

#define hlist_entry(ptr, type, member) container_of(ptr, type, member)

static inline void hlist_head_init(struct hlist_head *h)
{
	h->first = NULL;
}

static inline void hlist_node_init(struct hlist_node *n)
{
	n->next = NULL;
	n->pprev = NULL;
}

static inline bool hlist_unhashed(const struct hlist_node *n)
{
	return !n->pprev;
}

/* Put n first on h; a reader walking h without the lock sees it whole. */
static inline void hlist_add_head_rcu(struct hlist_node *n, struct hlist_head *h)
{
	struct hlist_node *first = h->first;
	__atomic_store_n(&n->next, first, __ATOMIC_RELAXED);
	n->pprev = &h->first;
	if (first)
		first->pprev = &n->next;
	__atomic_store_n(&h->first, n, __ATOMIC_RELEASE);	/* publish: after n->next */
}

/* Take n off its chain; n->next stays, for a reader standing on n. */
static inline void hlist_del_rcu(struct hlist_node *n)
{
	struct hlist_node *next = n->next;
	__atomic_store_n(n->pprev, next, __ATOMIC_RELAXED);
	if (next)
		next->pprev = n->pprev;
	n->pprev = NULL;
}

/* Walk a chain under its lock, or under rcu_read_lock (acquire loads
 * order the reads of each node after the load that found it). */
#define hlist_for_each(pos, head) \
	for (pos = __atomic_load_n(&(head)->first, __ATOMIC_ACQUIRE); pos; \
	     pos = __atomic_load_n(&pos->next, __ATOMIC_ACQUIRE))

#endif
