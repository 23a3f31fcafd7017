/* test_rewrite.c — placeholder, filled in below. */
#include "check.h"

int main(void)
{
    return check_status();
}
