/** The console: routes, the session gate and the data cache. */
import { lazy, Suspense, type ReactNode } from "react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { BrowserRouter, Navigate, Route, Routes, useLocation } from "react-router";
import { ApiError } from "./api/client";
import { Layout } from "./components/Layout";
import { Loading } from "./components/common";
import { SessionProvider, useSession } from "./session";
import { paths } from "./routes";
import { prefetchForLocation } from "./prefetch";
import { SignIn } from "./pages/SignIn";

// Pages load on first visit: the charting library, say, costs nothing until a dashboard opens.
const Deployments = lazy(() => import("./pages/Deployments"));
const DeploymentDetail = lazy(() => import("./pages/DeploymentDetail"));
const Projects = lazy(() => import("./pages/Projects"));
const SharedTrace = lazy(() => import("./pages/SharedTrace"));
const ProjectTraces = lazy(() => import("./pages/ProjectTraces"));
const Dashboard = lazy(() => import("./pages/Dashboard"));
const Threads = lazy(() => import("./pages/Threads"));
const Thread = lazy(() => import("./pages/Thread"));
const TraceView = lazy(() => import("./pages/TraceView"));
const Prices = lazy(() => import("./pages/Prices"));
const Datasets = lazy(() => import("./pages/Datasets"));
const DatasetDetail = lazy(() => import("./pages/DatasetDetail"));
const ExperimentCompare = lazy(() => import("./pages/ExperimentCompare"));
const DeploymentStudio = lazy(() => import("./studio/DeploymentStudio"));

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 5_000,
      refetchOnWindowFocus: false,
      // a 4xx will not get better by asking again
      retry: (n, err) => !(err instanceof ApiError && err.status < 500) && n < 2,
    },
  },
});

prefetchForLocation(queryClient, window.location.pathname);

function RequireSession({ children }: { children: ReactNode }) {
  const { session } = useSession();
  const location = useLocation();
  if (!session) return <Navigate to={paths.signIn} replace state={{ from: location.pathname + location.search }} />;
  return <>{children}</>;
}

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <SessionProvider>
        <BrowserRouter>
          <ConsoleRoutes />
        </BrowserRouter>
      </SessionProvider>
    </QueryClientProvider>
  );
}

/**
 * Every page remounts when the tenant (or key) changes: the cache was cleared, and a page still
 * mounted would keep showing the other tenant's answers until something made it fetch again.
 */
function ConsoleRoutes() {
  const { session } = useSession();
  return (
    <Routes key={`${session?.apiKey ?? ""}|${session?.tenantId ?? ""}`}>
      <Route path={paths.signIn} element={<SignIn />} />
      {/* a public link: readable without a session */}
      <Route path="/public/:token/r" element={<Page><SharedTrace /></Page>} />
      <Route
        element={
          <RequireSession>
            <Layout />
          </RequireSession>
        }
      >
        <Route index element={<Navigate to={paths.deployments} replace />} />
        <Route path="/deployments" element={<Page><Deployments /></Page>} />
        <Route path="/deployments/:deploymentId" element={<Page><DeploymentDetail /></Page>} />
        <Route path="/deployments/:deploymentId/studio/:tab?" element={<Page><DeploymentStudio /></Page>} />
        <Route path="/projects" element={<Page><Projects /></Page>} />
        <Route path="/projects/datasets" element={<Page><Datasets /></Page>} />
        <Route path="/projects/datasets/:datasetId" element={<Page><DatasetDetail /></Page>} />
        <Route path="/projects/datasets/:datasetId/compare" element={<Page><ExperimentCompare /></Page>} />
        <Route path="/projects/:projectId" element={<Page><ProjectTraces /></Page>} />
        <Route path="/projects/:projectId/dashboard" element={<Page><Dashboard /></Page>} />
        <Route path="/projects/:projectId/threads" element={<Page><Threads /></Page>} />
        <Route path="/projects/:projectId/threads/:threadId" element={<Page><Thread /></Page>} />
        <Route path="/traces/:traceId" element={<Page><TraceView /></Page>} />
        <Route path="/prices" element={<Page><Prices /></Page>} />
        <Route path="*" element={<p className="empty">No such page.</p>} />
      </Route>
    </Routes>
  );
}

function Page({ children }: { children: ReactNode }) {
  return <Suspense fallback={<Loading />}>{children}</Suspense>;
}
