/** The tracing facility's price table requests, as react-query hooks (one key: every change re-reads the table). */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { data, tracing } from "../api/client";
import type { PriceBody } from "./rules";

const KEY = ["model-prices"] as const;

export function usePrices() {
  return useQuery({ queryKey: KEY, queryFn: () => tracing.GET("/model-prices").then((r) => data(r).prices), staleTime: 30_000 });
}

function useInvalidate() {
  const qc = useQueryClient();
  return () => qc.invalidateQueries({ queryKey: KEY });
}

export function useCreatePrice() {
  const invalidate = useInvalidate();
  return useMutation({ mutationFn: (body: PriceBody) => tracing.POST("/model-prices", { body }).then((r) => data(r)), onSuccess: invalidate });
}

export function useUpdatePrice() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: Partial<PriceBody> }) =>
      tracing.PATCH("/model-prices/{price_id}", { params: { path: { price_id: id } }, body }).then((r) => data(r)),
    onSuccess: invalidate,
  });
}

export function useDeletePrice() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (id: string) => tracing.DELETE("/model-prices/{price_id}", { params: { path: { price_id: id } } }).then((r) => void data(r)),
    onSuccess: invalidate,
  });
}
