// Stub of @deepseek-ai/dsh-timeout: the largest delay setTimeout accepts.
export const MAX_TIMER_DELAY_MS = 2147483647;
