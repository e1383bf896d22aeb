/* dynerr: the error cases of ports and names, in one process.
 * A malformed or foreign port name gives MPI_ERR_PORT at once; a port
 * whose secret is wrong, and a port where nobody accepts, give
 * MPI_ERR_PORT once the info key "timeout" expires; closing a port twice
 * gives MPI_ERR_PORT; an unknown service gives MPI_ERR_NAME on lookup and
 * MPI_ERR_SERVICE on unpublish; a published name is found, then gone. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "mtest.h"

static int errs = 0;

static void expect(int rc, int class, const char *what)
{
    int c = -1;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &c);
    MTEST_CHECK(errs, c == class, "%s: class %d, expected %d", what, c, class);
}

int main(int argc, char **argv)
{
    MTest_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm inter = MPI_COMM_WORLD;
    MPI_Info quick;
    MPI_Info_create(&quick);
    MPI_Info_set(quick, "timeout", "1");

    expect(MPI_Comm_connect("garbage", MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter), MPI_ERR_PORT, "garbage port");
    MTEST_CHECK(errs, inter == MPI_COMM_NULL, "failed connect left newcomm set");
    expect(MPI_Comm_connect("tag#0$description#host$port#4242$ifname#127.0.0.1$", MPI_INFO_NULL, 0,
                            MPI_COMM_SELF, &inter), MPI_ERR_PORT, "MPICH port name");
    expect(MPI_Comm_connect("gmpi1;127.0.0.1;0;00", MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter),
           MPI_ERR_PORT, "short secret");

    char port[MPI_MAX_PORT_NAME], forged[MPI_MAX_PORT_NAME];
    int rc = MPI_Open_port(MPI_INFO_NULL, port);
    MTEST_CHECK(errs, rc == MPI_SUCCESS, "open_port rc %d", rc);
    /* The same addresses, another secret: refused by the handshake. */
    strcpy(forged, port);
    char *sec = strrchr(forged, ';');
    MTEST_CHECK(errs, sec != NULL, "port name %s", port);
    if (sec)
        for (char *p = sec + 1; *p; p++)
            *p = *p == '0' ? '1' : '0';
    expect(MPI_Comm_connect(forged, quick, 0, MPI_COMM_SELF, &inter), MPI_ERR_PORT, "forged secret");
    /* The right secret, but nobody accepts. */
    expect(MPI_Comm_connect(port, quick, 0, MPI_COMM_SELF, &inter), MPI_ERR_PORT, "nobody accepts");
    expect(MPI_Comm_accept("gmpi1;127.0.0.1;1;00112233445566778899aabbccddeeff", MPI_INFO_NULL, 0,
                           MPI_COMM_SELF, &inter), MPI_ERR_PORT, "accept on a port not opened here");

    /* Names. */
    expect(MPI_Lookup_name("gmpi-no-such-service", MPI_INFO_NULL, forged), MPI_ERR_NAME, "lookup unknown");
    expect(MPI_Unpublish_name("gmpi-no-such-service", MPI_INFO_NULL, port), MPI_ERR_SERVICE, "unpublish unknown");
    char svc[64];
    snprintf(svc, sizeof svc, "gmpi-dynerr-%d", (int) getpid());
    rc = MPI_Publish_name(svc, MPI_INFO_NULL, port);
    MTEST_CHECK(errs, rc == MPI_SUCCESS, "publish rc %d", rc);
    char found[MPI_MAX_PORT_NAME] = "";
    rc = MPI_Lookup_name(svc, MPI_INFO_NULL, found);
    MTEST_CHECK(errs, rc == MPI_SUCCESS && strcmp(found, port) == 0, "lookup rc %d: %s", rc, found);
    rc = MPI_Unpublish_name(svc, MPI_INFO_NULL, port);
    MTEST_CHECK(errs, rc == MPI_SUCCESS, "unpublish rc %d", rc);
    expect(MPI_Lookup_name(svc, MPI_INFO_NULL, found), MPI_ERR_NAME, "lookup after unpublish");

    rc = MPI_Close_port(port);
    MTEST_CHECK(errs, rc == MPI_SUCCESS, "close_port rc %d", rc);
    expect(MPI_Close_port(port), MPI_ERR_PORT, "second close");
    MPI_Info_free(&quick);
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
