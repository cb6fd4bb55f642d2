/** The top of every page of one tracing project: its name and the Traces | Dashboard | Threads tabs. */
import { Link, NavLink } from "react-router";
import { ErrorBox } from "../components/common";
import { paths } from "../routes";
import { useProject } from "./queries";
import "./tracing.css";

export function ProjectHeader({ projectId }: { projectId: string }) {
  const project = useProject(projectId);
  return (
    <header className="project-header">
      <nav aria-label="Breadcrumb" className="crumbs">
        <Link to={paths.projects}>Projects</Link> <span aria-hidden="true">/</span>
      </nav>
      <h1>{project.data?.name ?? (project.isLoading ? "…" : "Project")}</h1>
      {project.data?.description ? <p className="muted">{project.data.description}</p> : null}
      {project.data?.reference_dataset_id ? (
        <p className="muted">
          An experiment on <Link to={paths.dataset(project.data.reference_dataset_id)}>its dataset</Link>: scores of every experiment there.
        </p>
      ) : null}
      {project.error ? <ErrorBox error={project.error} title="Project" /> : null}
      <nav aria-label="Project" className="link-tabs">
        <NavLink to={paths.project(projectId)} end>
          Traces
        </NavLink>
        <NavLink to={paths.dashboard(projectId)}>Dashboard</NavLink>
        <NavLink to={paths.threads(projectId)}>Threads</NavLink>
      </nav>
    </header>
  );
}
