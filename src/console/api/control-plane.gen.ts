/**
 * Generated from the control plane's OpenAPI document (/openapi.json) by scripts/gen-console-api.ts: do not edit.
 * Regenerate with `npm run gen:api` after changing a route or its schemas.
 */

export interface paths {
    "/ok": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness and database check */
        get: operations["getOk"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/deployments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List deployments */
        get: operations["getV2Deployments"];
        put?: never;
        /** Create a deployment (and its first revision) */
        post: operations["postV2Deployments"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/deployments/{deployment_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a deployment */
        get: operations["getV2DeploymentsDeploymentId"];
        put?: never;
        post?: never;
        /** Delete a deployment (AWAITING_DELETE until torn down; traces are kept) */
        delete: operations["deleteV2DeploymentsDeploymentId"];
        options?: never;
        head?: never;
        /** Update a deployment (a new revision when revision fields, secrets or resource_spec are sent) */
        patch: operations["patchV2DeploymentsDeploymentId"];
        trace?: never;
    };
    "/v2/deployments/{deployment_id}/revisions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List revisions, newest first */
        get: operations["getV2DeploymentsDeploymentIdRevisions"];
        put?: never;
        /** Create a revision (always), optionally changing the deployment like PATCH */
        post: operations["postV2DeploymentsDeploymentIdRevisions"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/deployments/{deployment_id}/revisions/{revision_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a revision; ?wait=N returns as soon as its status is terminal (at most N seconds) */
        get: operations["getV2DeploymentsDeploymentIdRevisionsRevisionId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Roll back: a new revision with that revision's configuration */
        post: operations["postV2DeploymentsDeploymentIdRevisionsRevisionIdRedeploy"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/deployments/{deployment_id}/revisions/{revision_id}/logs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Build or deploy logs of a revision (cursor pages) */
        get: operations["getV2DeploymentsDeploymentIdRevisionsRevisionIdLogs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/listeners": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List listeners */
        get: operations["getV2Listeners"];
        put?: never;
        /** Create a listener */
        post: operations["postV2Listeners"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/listeners/{listener_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a listener */
        get: operations["getV2ListenersListenerId"];
        put?: never;
        post?: never;
        /** Delete a listener */
        delete: operations["deleteV2ListenersListenerId"];
        options?: never;
        head?: never;
        /** Update a listener */
        patch: operations["patchV2ListenersListenerId"];
        trace?: never;
    };
    "/v1/integrations/hosted_git/install": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The tenant's hosted-git integrations */
        get: operations["getV1IntegrationsHostedGitInstall"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/integrations/hosted_git": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Add a hosted-git integration (a git host: local, github or git) */
        post: operations["postV1IntegrationsHostedGit"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/integrations/hosted_git/{integration_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove an integration */
        delete: operations["deleteV1IntegrationsHostedGitIntegrationId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/integrations/hosted_git/{integration_id}/repos": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Repositories the integration can build from */
        get: operations["getV1IntegrationsHostedGitIntegrationIdRepos"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/whoami": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Who this request acts as: its tenant, every tenant it may act for, its key */
        get: operations["getV2Whoami"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Keys of this tenant (without their secret) */
        get: operations["getV2ApiKeys"];
        put?: never;
        /** Create a key; its value is shown only in this response */
        post: operations["postV2ApiKeys"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/api-keys/{key_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke a key */
        delete: operations["deleteV2ApiKeysKeyId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/deployments/{deployment_id}/platform-auth/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The key snapshot of a deployment's agent server (hashes of its tenant's keys); only for that deployment's own credential */
        get: operations["getV2DeploymentsDeploymentIdPlatformAuthKeys"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/tenants": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every tenant (admin) */
        get: operations["getV2Tenants"];
        put?: never;
        /** Create a tenant (admin); then create its keys with POST /v2/api-keys */
        post: operations["postV2Tenants"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/tenants/{tenant_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A tenant (admin) */
        get: operations["getV2TenantsTenantId"];
        put?: never;
        post?: never;
        /** Delete a tenant without deployments, and revoke its keys (admin) */
        delete: operations["deleteV2TenantsTenantId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        ApiKey: {
            /** Format: uuid */
            id: string;
            name: string;
            tenant_ids: string[];
            /** @description An admin key (configured on the server): may also manage tenants */
            admin: boolean;
            /** @description Empty: every API of its tenants. tracing:write: trace ingestion only (a deployment's key) */
            scopes: string[];
            /** @description The only tracing project a scoped key may write to */
            project: string | null;
            /** @description The deployment the key was issued for; revoked when it is deleted */
            deployment_id: string | null;
            /** Format: date-time */
            created_at: string;
        };
        ApiKeyCreated: {
            /** Format: uuid */
            id: string;
            /** @description The key itself: shown only in this response */
            key: string;
            name: string;
            tenant_ids: string[];
        };
        ApiKeyList: {
            resources: components["schemas"]["ApiKey"][];
        };
        Deployment: {
            name: string;
            /** @enum {string} */
            source: "hosted_git" | "external_container";
            source_config: {
                integration_id?: string | null;
                repo_url?: string | null;
                deployment_type?: ("dev_free" | "dev" | "prod") | null;
                build_on_push?: boolean | null;
                custom_url?: string | null;
                resource_spec?: {
                    min_scale?: number | null;
                    max_scale?: number | null;
                    cpu?: number | null;
                    cpu_limit?: number | null;
                    memory_mb?: number | null;
                    memory_limit_mb?: number | null;
                    queue_min_scale?: number | null;
                    queue_max_scale?: number | null;
                    queue_cpu?: number | null;
                    queue_cpu_limit?: number | null;
                    queue_memory_mb?: number | null;
                    queue_memory_limit_mb?: number | null;
                    /** @description Reserved; must not be used (only null is accepted). */
                    orchestrator_cpu?: null;
                    /** @description Reserved; must not be used (only null is accepted). */
                    orchestrator_cpu_limit?: null;
                    /** @description Reserved; must not be used (only null is accepted). */
                    orchestrator_memory_mb?: null;
                    /** @description Reserved; must not be used (only null is accepted). */
                    orchestrator_memory_limit_mb?: null;
                    /** @description Reserved; must not be used (only null is accepted). */
                    orchestrator_min_scale?: null;
                    /** @description Reserved; must not be used (only null is accepted). */
                    orchestrator_max_scale?: null;
                    /** @description Reserved; must not be used (only null is accepted). */
                    executor_cpu?: null;
                    /** @description Reserved; must not be used (only null is accepted). */
                    executor_cpu_limit?: null;
                    /** @description Reserved; must not be used (only null is accepted). */
                    executor_memory_mb?: null;
                    /** @description Reserved; must not be used (only null is accepted). */
                    executor_memory_limit_mb?: null;
                    kvstore_memory_mb?: number | null;
                    labels?: {
                        [key: string]: string;
                    } | null;
                    annotations?: {
                        [key: string]: string;
                    } | null;
                    service_account_name?: string | null;
                    image_pull_secrets?: {
                        name: string;
                    }[] | null;
                    volumes?: {
                        name: string;
                        configMap?: {
                            [key: string]: unknown;
                        } | null;
                        secret?: {
                            [key: string]: unknown;
                        } | null;
                        emptyDir?: {
                            [key: string]: unknown;
                        } | null;
                        persistentVolumeClaim?: {
                            [key: string]: unknown;
                        } | null;
                        nfs?: {
                            [key: string]: unknown;
                        } | null;
                        projected?: {
                            [key: string]: unknown;
                        } | null;
                        downwardAPI?: {
                            [key: string]: unknown;
                        } | null;
                        csi?: {
                            [key: string]: unknown;
                        } | null;
                    }[] | null;
                    volume_mounts?: {
                        name: string;
                        mountPath: string;
                        subPath?: string | null;
                        mountPropagation?: string | null;
                        readOnly?: boolean | null;
                        subPathExpr?: string | null;
                    }[] | null;
                    init_containers?: {
                        name: string;
                        image: string;
                        imagePullPolicy?: ("Always" | "Never" | "IfNotPresent") | null;
                        command?: string[] | null;
                        args?: string[] | null;
                        workingDir?: string | null;
                        env?: {
                            name: string;
                            value?: string | null;
                            valueFrom?: {
                                [key: string]: unknown;
                            } | null;
                        }[] | null;
                        envFrom?: {
                            [key: string]: unknown;
                        }[] | null;
                        resources?: {
                            limits?: {
                                [key: string]: string;
                            } | null;
                            requests?: {
                                [key: string]: string;
                            } | null;
                        } | null;
                        volumeMounts?: {
                            name: string;
                            mountPath: string;
                            subPath?: string | null;
                            mountPropagation?: string | null;
                            readOnly?: boolean | null;
                            subPathExpr?: string | null;
                        }[] | null;
                        securityContext?: {
                            [key: string]: unknown;
                        } | null;
                        restartPolicy?: ("Always" | "OnFailure") | null;
                    }[] | null;
                    sidecars?: {
                        name: string;
                        image: string;
                        imagePullPolicy?: ("Always" | "Never" | "IfNotPresent") | null;
                        command?: string[] | null;
                        args?: string[] | null;
                        workingDir?: string | null;
                        env?: {
                            name: string;
                            value?: string | null;
                            valueFrom?: {
                                [key: string]: unknown;
                            } | null;
                        }[] | null;
                        envFrom?: {
                            [key: string]: unknown;
                        }[] | null;
                        resources?: {
                            limits?: {
                                [key: string]: string;
                            } | null;
                            requests?: {
                                [key: string]: string;
                            } | null;
                        } | null;
                        volumeMounts?: {
                            name: string;
                            mountPath: string;
                            subPath?: string | null;
                            mountPropagation?: string | null;
                            readOnly?: boolean | null;
                            subPathExpr?: string | null;
                        }[] | null;
                        securityContext?: {
                            [key: string]: unknown;
                        } | null;
                        restartPolicy?: ("Always" | "OnFailure") | null;
                    }[] | null;
                    db_cpu?: number | null;
                    db_cpu_limit?: number | null;
                    db_memory_mb?: number | null;
                    db_memory_limit_mb?: number | null;
                    db_storage_gi?: number | null;
                    db_max_connections?: number | null;
                } | null;
                listener_id?: string | null;
                listener_config?: {
                    k8s_namespace?: string | null;
                } | null;
                install_command?: string | null;
                build_command?: string | null;
            };
            source_revision_config: {
                repo_ref?: string | null;
                agent_config_path?: string | null;
                image_uri?: string | null;
                repo_commit_sha?: string | null;
            };
            secrets: {
                name: string;
                value: string;
            }[];
            /** Format: uuid */
            id: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            /** @enum {string} */
            status: "AWAITING_DATABASE" | "READY" | "UNUSED" | "AWAITING_DELETE" | "UNKNOWN";
            latest_revision_id: string | null;
            active_revision_id: string | null;
            image_version?: string | null;
        };
        DeploymentList: {
            resources: components["schemas"]["Deployment"][];
            offset: number;
        };
        DeploymentPatchRequest: {
            name?: string | null;
            source?: ("hosted_git" | "external_container") | null;
            source_config?: {
                integration_id?: string | null;
                repo_url?: string | null;
                deployment_type?: ("dev_free" | "dev" | "prod") | null;
                build_on_push?: boolean | null;
                custom_url?: string | null;
                resource_spec?: {
                    min_scale?: number | null;
                    max_scale?: number | null;
                    cpu?: number | null;
                    cpu_limit?: number | null;
                    memory_mb?: number | null;
                    memory_limit_mb?: number | null;
                    queue_min_scale?: number | null;
                    queue_max_scale?: number | null;
                    queue_cpu?: number | null;
                    queue_cpu_limit?: number | null;
                    queue_memory_mb?: number | null;
                    queue_memory_limit_mb?: number | null;
                    /** @description Reserved; must not be used (only null is accepted). */
                    orchestrator_cpu?: null;
                    /** @description Reserved; must not be used (only null is accepted). */
                    orchestrator_cpu_limit?: null;
                    /** @description Reserved; must not be used (only null is accepted). */
                    orchestrator_memory_mb?: null;
                    /** @description Reserved; must not be used (only null is accepted). */
                    orchestrator_memory_limit_mb?: null;
                    /** @description Reserved; must not be used (only null is accepted). */
                    orchestrator_min_scale?: null;
                    /** @description Reserved; must not be used (only null is accepted). */
                    orchestrator_max_scale?: null;
                    /** @description Reserved; must not be used (only null is accepted). */
                    executor_cpu?: null;
                    /** @description Reserved; must not be used (only null is accepted). */
                    executor_cpu_limit?: null;
                    /** @description Reserved; must not be used (only null is accepted). */
                    executor_memory_mb?: null;
                    /** @description Reserved; must not be used (only null is accepted). */
                    executor_memory_limit_mb?: null;
                    kvstore_memory_mb?: number | null;
                    labels?: {
                        [key: string]: string;
                    } | null;
                    annotations?: {
                        [key: string]: string;
                    } | null;
                    service_account_name?: string | null;
                    image_pull_secrets?: {
                        name: string;
                    }[] | null;
                    volumes?: {
                        name: string;
                        configMap?: {
                            [key: string]: unknown;
                        } | null;
                        secret?: {
                            [key: string]: unknown;
                        } | null;
                        emptyDir?: {
                            [key: string]: unknown;
                        } | null;
                        persistentVolumeClaim?: {
                            [key: string]: unknown;
                        } | null;
                        nfs?: {
                            [key: string]: unknown;
                        } | null;
                        projected?: {
                            [key: string]: unknown;
                        } | null;
                        downwardAPI?: {
                            [key: string]: unknown;
                        } | null;
                        csi?: {
                            [key: string]: unknown;
                        } | null;
                    }[] | null;
                    volume_mounts?: {
                        name: string;
                        mountPath: string;
                        subPath?: string | null;
                        mountPropagation?: string | null;
                        readOnly?: boolean | null;
                        subPathExpr?: string | null;
                    }[] | null;
                    init_containers?: {
                        name: string;
                        image: string;
                        imagePullPolicy?: ("Always" | "Never" | "IfNotPresent") | null;
                        command?: string[] | null;
                        args?: string[] | null;
                        workingDir?: string | null;
                        env?: {
                            name: string;
                            value?: string | null;
                            valueFrom?: {
                                [key: string]: unknown;
                            } | null;
                        }[] | null;
                        envFrom?: {
                            [key: string]: unknown;
                        }[] | null;
                        resources?: {
                            limits?: {
                                [key: string]: string;
                            } | null;
                            requests?: {
                                [key: string]: string;
                            } | null;
                        } | null;
                        volumeMounts?: {
                            name: string;
                            mountPath: string;
                            subPath?: string | null;
                            mountPropagation?: string | null;
                            readOnly?: boolean | null;
                            subPathExpr?: string | null;
                        }[] | null;
                        securityContext?: {
                            [key: string]: unknown;
                        } | null;
                        restartPolicy?: ("Always" | "OnFailure") | null;
                    }[] | null;
                    sidecars?: {
                        name: string;
                        image: string;
                        imagePullPolicy?: ("Always" | "Never" | "IfNotPresent") | null;
                        command?: string[] | null;
                        args?: string[] | null;
                        workingDir?: string | null;
                        env?: {
                            name: string;
                            value?: string | null;
                            valueFrom?: {
                                [key: string]: unknown;
                            } | null;
                        }[] | null;
                        envFrom?: {
                            [key: string]: unknown;
                        }[] | null;
                        resources?: {
                            limits?: {
                                [key: string]: string;
                            } | null;
                            requests?: {
                                [key: string]: string;
                            } | null;
                        } | null;
                        volumeMounts?: {
                            name: string;
                            mountPath: string;
                            subPath?: string | null;
                            mountPropagation?: string | null;
                            readOnly?: boolean | null;
                            subPathExpr?: string | null;
                        }[] | null;
                        securityContext?: {
                            [key: string]: unknown;
                        } | null;
                        restartPolicy?: ("Always" | "OnFailure") | null;
                    }[] | null;
                    db_cpu?: number | null;
                    db_cpu_limit?: number | null;
                    db_memory_mb?: number | null;
                    db_memory_limit_mb?: number | null;
                    db_storage_gi?: number | null;
                    db_max_connections?: number | null;
                } | null;
                listener_id?: string | null;
                listener_config?: {
                    k8s_namespace?: string | null;
                } | null;
                install_command?: string | null;
                build_command?: string | null;
            } | null;
            source_revision_config?: {
                repo_ref?: string | null;
                agent_config_path?: string | null;
                image_uri?: string | null;
            } | null;
            secrets?: {
                name: string;
                value: string;
            }[] | null;
        };
        ErrorDetail: {
            detail: string;
        };
        HTTPValidationError: {
            detail: {
                loc: (string | number)[];
                msg: string;
                type: string;
            }[];
        };
        Health: {
            /** @constant */
            ok: true;
        };
        Integration: {
            /** Format: uuid */
            id: string;
            name: string;
            /** @enum {string} */
            kind: "local" | "github" | "git";
            base_url: string | null;
            installation_id: null;
            has_token: boolean;
            has_webhook_secret: boolean;
            /** Format: date-time */
            created_at: string;
        };
        IntegrationList: components["schemas"]["Integration"][];
        Listener: {
            /** Format: uuid */
            id: string;
            /** @enum {string} */
            compute_type: "local" | "k8s";
            compute_id: string;
            compute_config: {
                k8s_namespaces?: string[] | null;
                image_registry?: string | null;
                registry_push_secret?: string | null;
                kaniko_image?: string | null;
            };
            version?: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        ListenerList: {
            resources: components["schemas"]["Listener"][];
            offset: number;
        };
        LogEntry: {
            id: string;
            timestamp: string;
            level: string;
            message: string;
        };
        LogPage: {
            logs: components["schemas"]["LogEntry"][];
            next_offset: string | null;
        };
        Repository: {
            /** Format: uuid */
            host_integration_id: string;
            id: string;
            name: string;
            owner: string;
            url: string;
            default_branch: string | null;
        };
        RepositoryList: components["schemas"]["Repository"][];
        Revision: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            deployment_id: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            /** @enum {string} */
            status: "CREATING" | "QUEUED" | "AWAITING_BUILD" | "BUILDING" | "AWAITING_DEPLOY" | "DEPLOYING" | "CREATE_FAILED" | "BUILD_FAILED" | "DEPLOY_FAILED" | "DEPLOYED" | "SKIPPED" | "INTERRUPTED" | "UNKNOWN";
            /** @enum {string} */
            source: "hosted_git" | "external_container";
            source_revision_config: {
                repo_ref?: string | null;
                agent_config_path?: string | null;
                image_uri?: string | null;
                repo_commit_sha?: string | null;
            };
            /** @description Why the revision failed or was skipped; the logs have the detail */
            status_reason: string | null;
            /** @description Every status the revision went through, oldest first */
            status_history: components["schemas"]["RevisionStatusChange"][];
            /** @description It is the deployment's active_revision_id: the revision serving traffic */
            is_active: boolean;
            /** @description It reached DEPLOYED (and keeps that status) but a newer revision serves traffic now: after a rollback, every older DEPLOYED revision */
            superseded: boolean;
        };
        RevisionList: {
            resources: components["schemas"]["Revision"][];
            offset: number;
        };
        RevisionStatusChange: {
            /** @enum {string} */
            status: "CREATING" | "QUEUED" | "AWAITING_BUILD" | "BUILDING" | "AWAITING_DEPLOY" | "DEPLOYING" | "CREATE_FAILED" | "BUILD_FAILED" | "DEPLOY_FAILED" | "DEPLOYED" | "SKIPPED" | "INTERRUPTED" | "UNKNOWN";
            /** Format: date-time */
            at: string;
            reason: string | null;
        };
        Tenant: {
            /** Format: uuid */
            id: string;
            name: string;
        };
        TenantRecord: {
            /** Format: uuid */
            id: string;
            name: string;
            /** Format: date-time */
            created_at: string;
        };
        Whoami: {
            /**
             * Format: uuid
             * @description The tenant this request acts for
             */
            tenant_id: string;
            /** @description Every tenant the credentials may act for (a tenant picker when more than one) */
            tenants: components["schemas"]["Tenant"][];
            /** @description The API key's id; null when signed in another way */
            key_id: string | null;
            /** @enum {string} */
            via: "api_key" | "jwt" | "loopback";
            /** @description An admin key: may also manage tenants (/v2/tenants) */
            admin: boolean;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getOk: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
        };
    };
    getV2Deployments: {
        parameters: {
            query?: {
                name_contains?: string;
                name?: string;
                status?: "AWAITING_DATABASE" | "READY" | "UNUSED" | "AWAITING_DELETE" | "UNKNOWN";
                deployment_type?: "dev_free" | "dev" | "prod";
                deployment_ids?: string;
                limit?: number;
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeploymentList"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    postV2Deployments: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    /** @enum {string} */
                    source: "hosted_git" | "external_container";
                    source_config: {
                        integration_id?: string | null;
                        repo_url?: string | null;
                        deployment_type?: ("dev_free" | "dev" | "prod") | null;
                        build_on_push?: boolean | null;
                        custom_url?: string | null;
                        resource_spec?: {
                            min_scale?: number | null;
                            max_scale?: number | null;
                            cpu?: number | null;
                            cpu_limit?: number | null;
                            memory_mb?: number | null;
                            memory_limit_mb?: number | null;
                            queue_min_scale?: number | null;
                            queue_max_scale?: number | null;
                            queue_cpu?: number | null;
                            queue_cpu_limit?: number | null;
                            queue_memory_mb?: number | null;
                            queue_memory_limit_mb?: number | null;
                            /** @description Reserved; must not be used (only null is accepted). */
                            orchestrator_cpu?: null;
                            /** @description Reserved; must not be used (only null is accepted). */
                            orchestrator_cpu_limit?: null;
                            /** @description Reserved; must not be used (only null is accepted). */
                            orchestrator_memory_mb?: null;
                            /** @description Reserved; must not be used (only null is accepted). */
                            orchestrator_memory_limit_mb?: null;
                            /** @description Reserved; must not be used (only null is accepted). */
                            orchestrator_min_scale?: null;
                            /** @description Reserved; must not be used (only null is accepted). */
                            orchestrator_max_scale?: null;
                            /** @description Reserved; must not be used (only null is accepted). */
                            executor_cpu?: null;
                            /** @description Reserved; must not be used (only null is accepted). */
                            executor_cpu_limit?: null;
                            /** @description Reserved; must not be used (only null is accepted). */
                            executor_memory_mb?: null;
                            /** @description Reserved; must not be used (only null is accepted). */
                            executor_memory_limit_mb?: null;
                            kvstore_memory_mb?: number | null;
                            labels?: {
                                [key: string]: string;
                            } | null;
                            annotations?: {
                                [key: string]: string;
                            } | null;
                            service_account_name?: string | null;
                            image_pull_secrets?: {
                                name: string;
                            }[] | null;
                            volumes?: {
                                name: string;
                                configMap?: {
                                    [key: string]: unknown;
                                } | null;
                                secret?: {
                                    [key: string]: unknown;
                                } | null;
                                emptyDir?: {
                                    [key: string]: unknown;
                                } | null;
                                persistentVolumeClaim?: {
                                    [key: string]: unknown;
                                } | null;
                                nfs?: {
                                    [key: string]: unknown;
                                } | null;
                                projected?: {
                                    [key: string]: unknown;
                                } | null;
                                downwardAPI?: {
                                    [key: string]: unknown;
                                } | null;
                                csi?: {
                                    [key: string]: unknown;
                                } | null;
                            }[] | null;
                            volume_mounts?: {
                                name: string;
                                mountPath: string;
                                subPath?: string | null;
                                mountPropagation?: string | null;
                                readOnly?: boolean | null;
                                subPathExpr?: string | null;
                            }[] | null;
                            init_containers?: {
                                name: string;
                                image: string;
                                imagePullPolicy?: ("Always" | "Never" | "IfNotPresent") | null;
                                command?: string[] | null;
                                args?: string[] | null;
                                workingDir?: string | null;
                                env?: {
                                    name: string;
                                    value?: string | null;
                                    valueFrom?: {
                                        [key: string]: unknown;
                                    } | null;
                                }[] | null;
                                envFrom?: {
                                    [key: string]: unknown;
                                }[] | null;
                                resources?: {
                                    limits?: {
                                        [key: string]: string;
                                    } | null;
                                    requests?: {
                                        [key: string]: string;
                                    } | null;
                                } | null;
                                volumeMounts?: {
                                    name: string;
                                    mountPath: string;
                                    subPath?: string | null;
                                    mountPropagation?: string | null;
                                    readOnly?: boolean | null;
                                    subPathExpr?: string | null;
                                }[] | null;
                                securityContext?: {
                                    [key: string]: unknown;
                                } | null;
                                restartPolicy?: ("Always" | "OnFailure") | null;
                            }[] | null;
                            sidecars?: {
                                name: string;
                                image: string;
                                imagePullPolicy?: ("Always" | "Never" | "IfNotPresent") | null;
                                command?: string[] | null;
                                args?: string[] | null;
                                workingDir?: string | null;
                                env?: {
                                    name: string;
                                    value?: string | null;
                                    valueFrom?: {
                                        [key: string]: unknown;
                                    } | null;
                                }[] | null;
                                envFrom?: {
                                    [key: string]: unknown;
                                }[] | null;
                                resources?: {
                                    limits?: {
                                        [key: string]: string;
                                    } | null;
                                    requests?: {
                                        [key: string]: string;
                                    } | null;
                                } | null;
                                volumeMounts?: {
                                    name: string;
                                    mountPath: string;
                                    subPath?: string | null;
                                    mountPropagation?: string | null;
                                    readOnly?: boolean | null;
                                    subPathExpr?: string | null;
                                }[] | null;
                                securityContext?: {
                                    [key: string]: unknown;
                                } | null;
                                restartPolicy?: ("Always" | "OnFailure") | null;
                            }[] | null;
                            db_cpu?: number | null;
                            db_cpu_limit?: number | null;
                            db_memory_mb?: number | null;
                            db_memory_limit_mb?: number | null;
                            db_storage_gi?: number | null;
                            db_max_connections?: number | null;
                        } | null;
                        listener_id?: string | null;
                        listener_config?: {
                            k8s_namespace?: string | null;
                        } | null;
                        install_command?: string | null;
                        build_command?: string | null;
                    };
                    source_revision_config: {
                        repo_ref?: string | null;
                        agent_config_path?: string | null;
                        image_uri?: string | null;
                    };
                    secrets: {
                        name: string;
                        value: string;
                    }[];
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Deployment"];
                };
            };
            /** @description Source configuration error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Name taken */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getV2DeploymentsDeploymentId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                deployment_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Deployment"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    deleteV2DeploymentsDeploymentId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                deployment_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deletion started */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    patchV2DeploymentsDeploymentId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                deployment_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DeploymentPatchRequest"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Deployment"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getV2DeploymentsDeploymentIdRevisions: {
        parameters: {
            query?: {
                status?: string;
                limit?: number;
                offset?: number;
            };
            header?: never;
            path: {
                deployment_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RevisionList"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    postV2DeploymentsDeploymentIdRevisions: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                deployment_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["DeploymentPatchRequest"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Revision"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getV2DeploymentsDeploymentIdRevisionsRevisionId: {
        parameters: {
            query?: {
                wait?: number;
            };
            header?: never;
            path: {
                deployment_id: string;
                revision_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Revision"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    postV2DeploymentsDeploymentIdRevisionsRevisionIdRedeploy: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                deployment_id: string;
                revision_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Deployment"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getV2DeploymentsDeploymentIdRevisionsRevisionIdLogs: {
        parameters: {
            query: {
                type: "build" | "deploy";
                limit?: number;
                offset?: string;
                order?: "asc" | "desc";
                start_time?: string;
                end_time?: string;
                query?: string;
                level?: "DEBUG" | "INFO" | "WARNING" | "ERROR" | "CRITICAL";
            };
            header?: never;
            path: {
                deployment_id: string;
                revision_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LogPage"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getV2Listeners: {
        parameters: {
            query?: {
                limit?: number;
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ListenerList"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    postV2Listeners: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    compute_type: "local" | "k8s";
                    compute_id: string;
                    /** @default {} */
                    compute_config?: {
                        k8s_namespaces?: string[] | null;
                        image_registry?: string | null;
                        registry_push_secret?: string | null;
                        kaniko_image?: string | null;
                    };
                    version?: string | null;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Listener"];
                };
            };
            /** @description compute_id taken */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getV2ListenersListenerId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                listener_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Listener"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    deleteV2ListenersListenerId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                listener_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description In use */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    patchV2ListenersListenerId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                listener_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    version?: string | null;
                    compute_config?: {
                        k8s_namespaces?: string[] | null;
                        image_registry?: string | null;
                        registry_push_secret?: string | null;
                        kaniko_image?: string | null;
                    } | null;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Listener"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getV1IntegrationsHostedGitInstall: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IntegrationList"];
                };
            };
        };
    };
    postV1IntegrationsHostedGit: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    /** @enum {string} */
                    kind: "local" | "github" | "git";
                    base_url?: string | null;
                    token?: string | null;
                    webhook_secret?: string | null;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Integration"];
                };
            };
            /** @description Name taken */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    deleteV1IntegrationsHostedGitIntegrationId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                integration_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getV1IntegrationsHostedGitIntegrationIdRepos: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                integration_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RepositoryList"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getV2Whoami: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Whoami"];
                };
            };
        };
    };
    getV2ApiKeys: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKeyList"];
                };
            };
        };
    };
    postV2ApiKeys: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @default  */
                    name?: string;
                    tenant_ids?: string[];
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKeyCreated"];
                };
            };
            /** @description Tenant not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Unknown tenant */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    deleteV2ApiKeysKeyId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                key_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Revoked */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getV2DeploymentsDeploymentIdPlatformAuthKeys: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                deployment_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Not this deployment's credential */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getV2Tenants: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Not an admin key */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
        };
    };
    postV2Tenants: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TenantRecord"];
                };
            };
            /** @description Not an admin key */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Name taken */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getV2TenantsTenantId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenant_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Not an admin key */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    deleteV2TenantsTenantId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenant_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Not an admin key */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Default tenant, or deployments left */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
}
