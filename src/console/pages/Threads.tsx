/** A project's conversations (runs grouped by thread id), most recently active first. */
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { Link, useParams, useSearchParams } from "react-router";
import { data, tracing } from "../api/client";
import { ErrorBox, Loading } from "../components/common";
import { fmtCost, fmtTime, fmtTokens } from "../format";
import { paths } from "../routes";
import { Pager } from "../tracing/Pager";
import { ProjectHeader } from "../tracing/ProjectHeader";
import "../tracing/tracing.css";

const PAGE = 50;

export default function Threads() {
  const { projectId = "" } = useParams();
  const [params, setParams] = useSearchParams();
  const offset = Math.max(0, Number(params.get("offset")) || 0);
  const list = useQuery({
    queryKey: ["tracing", "threads", projectId, offset],
    queryFn: async () => data(await tracing.GET("/projects/{project_id}/threads", { params: { path: { project_id: projectId }, query: { limit: PAGE, offset } } })),
    placeholderData: keepPreviousData,
  });
  const threads = list.data?.threads ?? [];
  return (
    <div className="tracing-page">
      <ProjectHeader projectId={projectId} />
      {list.error ? <ErrorBox error={list.error} title="Threads" /> : null}
      {list.isLoading ? (
        <Loading what="threads" />
      ) : !threads.length ? (
        <p className="empty">
          {offset ? "No more threads." : "No conversations yet: traces join a thread through a thread_id, session_id or conversation_id in their metadata."}
        </p>
      ) : (
        <table className="data">
          <thead>
            <tr>
              <th>Thread</th>
              <th className="num">Turns</th>
              <th className="num">Failed turns</th>
              <th>First turn</th>
              <th>Last activity</th>
              <th className="num">LLM calls</th>
              <th className="num">Tokens</th>
              <th className="num">Cost</th>
            </tr>
          </thead>
          <tbody>
            {threads.map((t) => (
              <tr key={t.thread_id}>
                <td>
                  <Link className="mono" to={paths.thread(projectId, t.thread_id)}>
                    {t.thread_id}
                  </Link>
                </td>
                <td className="num">{t.turn_count}</td>
                <td className={`num${t.error_count ? " has-errors" : ""}`}>{t.error_count}</td>
                <td className="nowrap">{fmtTime(t.first_start_time)}</td>
                <td className="nowrap">{fmtTime(t.last_start_time)}</td>
                <td className="num">{fmtTokens(t.llm_count)}</td>
                <td className="num">{fmtTokens(t.total_tokens)}</td>
                <td className="num">{fmtCost(t.total_cost)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager
        offset={offset}
        pageSize={PAGE}
        count={threads.length}
        onOffset={(o) => {
          const next = new URLSearchParams(params);
          if (o) next.set("offset", String(o));
          else next.delete("offset");
          setParams(next);
        }}
      />
    </div>
  );
}
