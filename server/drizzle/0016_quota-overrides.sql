ALTER TABLE `companies` ADD `quota_overrides` json;--> statement-breakpoint
UPDATE `companies` SET `quota_overrides` = JSON_OBJECT('projects', `max_projects`, 'workers', `max_workers`) WHERE `max_projects` IS NOT NULL AND `max_workers` IS NOT NULL;--> statement-breakpoint
UPDATE `companies` SET `quota_overrides` = JSON_OBJECT('projects', `max_projects`) WHERE `max_projects` IS NOT NULL AND `max_workers` IS NULL;--> statement-breakpoint
UPDATE `companies` SET `quota_overrides` = JSON_OBJECT('workers', `max_workers`) WHERE `max_projects` IS NULL AND `max_workers` IS NOT NULL;--> statement-breakpoint
ALTER TABLE `companies` DROP COLUMN `max_projects`;--> statement-breakpoint
ALTER TABLE `companies` DROP COLUMN `max_workers`;
