/* main.c — the mcalltree command. */
int main(void)
{
    return 0;
}
