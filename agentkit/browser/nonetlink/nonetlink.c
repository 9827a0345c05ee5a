/*
 * nonetlink: preloaded into Chromium (LD_PRELOAD) by trapline's browser package.
 *
 * Chromium watches the host's network interfaces through a NETLINK_ROUTE socket. When an interface or
 * address appears or goes away, it aborts every connection still being set up with
 * net::ERR_NETWORK_CHANGED, proxied ones on loopback included. A Docker engine adds and removes
 * interfaces whenever a network or container starts or stops, so one test's container world broke
 * another test's browser. trapline's browser reaches the world only through a proxy on 127.0.0.1,
 * which no interface change affects.
 *
 * This library refuses NETLINK_ROUTE sockets with EAFNOSUPPORT; Chromium then takes its documented
 * fallback (no address tracking, always online). Every other socket goes to libc unchanged.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <linux/netlink.h>
#include <sys/socket.h>

typedef int (*socket_fn)(int, int, int);

int socket(int domain, int type, int protocol) {
	static socket_fn real;
	if (domain == AF_NETLINK && protocol == NETLINK_ROUTE) {
		errno = EAFNOSUPPORT;
		return -1;
	}
	if (real == NULL) {
		real = (socket_fn)dlsym(RTLD_NEXT, "socket");
		if (real == NULL) {
			errno = ENOSYS;
			return -1;
		}
	}
	return real(domain, type, protocol);
}
