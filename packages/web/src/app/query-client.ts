import { QueryClient } from '@tanstack/react-query';
import { ApiError } from '@/lib/api-client';

/** A 4xx will answer the same on retry; only network trouble and 5xx are worth another try. */
function shouldRetry(failureCount: number, error: Error): boolean {
  if (error instanceof ApiError && error.status >= 400 && error.status < 500) return false;
  return failureCount < 2;
}

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { retry: shouldRetry, staleTime: 30_000 },
      mutations: { retry: false },
    },
  });
}
